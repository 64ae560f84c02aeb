// multipart/form-data: the boundary from Content-Type, parts with names, file names and types,
// and a clear error (never a crash) for each way a body can be malformed or too big.
#include "server/multipart.h"

#include <gtest/gtest.h>

namespace gemmad::server {
namespace {

std::string Body(const std::string& boundary, const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += "--" + boundary + "\r\n" + p + "\r\n";
  return out + "--" + boundary + "--\r\n";
}

TEST(MultipartBoundaryTest, TokenOrQuoted) {
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=abc123"), "abc123");
  EXPECT_EQ(*MultipartBoundary("Multipart/Form-Data;boundary=\"a b;c\";charset=utf-8"), "a b;c");
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; charset=utf-8; BOUNDARY=--x--"), "--x--");
  EXPECT_EQ(*MultipartBoundary("multipart/form-data; boundary=\"q\\\"q\""), "q\"q");
}

TEST(MultipartBoundaryTest, Errors) {
  EXPECT_NE(MultipartBoundary("application/json").status().message().find("must be multipart/form-data"),
            std::string::npos);
  EXPECT_NE(MultipartBoundary("").status().message().find("must be multipart/form-data"), std::string::npos);
  EXPECT_NE(MultipartBoundary("multipart/form-data").status().message().find("no boundary"), std::string::npos);
  EXPECT_NE(MultipartBoundary("multipart/form-data; boundary=").status().message().find("no boundary"),
            std::string::npos);
  EXPECT_NE(MultipartBoundary("multipart/form-data; boundary=\"abc").status().message().find("unterminated"),
            std::string::npos);
  EXPECT_NE(MultipartBoundary("multipart/form-data; boundary=" + std::string(71, 'a')).status().message().find("70"),
            std::string::npos);
}

TEST(ParseMultipartTest, FieldsAndFiles) {
  const std::string wav("RIFF\0\0\r\n--notit\r\n\xff", 18);
  const std::string body = Body("XyZ", {"Content-Disposition: form-data; name=\"model\"\r\n\r\ngemma",
                                        "content-disposition: form-data; name=\"file\"; filename=\"a b.wav\"\r\n"
                                        "Content-Type: audio/wav\r\n\r\n" + wav,
                                        "Content-Disposition: form-data; name=\"empty\"\r\n\r\n"});
  auto parts = ParseMultipart(body, "XyZ");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[0].name, "model");
  EXPECT_EQ((*parts)[0].data, "gemma");
  EXPECT_FALSE((*parts)[0].is_file());
  EXPECT_EQ((*parts)[1].name, "file");
  EXPECT_EQ((*parts)[1].filename, "a b.wav");
  EXPECT_EQ((*parts)[1].content_type, "audio/wav");
  EXPECT_EQ((*parts)[1].data, wav);
  EXPECT_EQ((*parts)[2].data, "");
}

TEST(ParseMultipartTest, PreambleEpilogueAndPadding) {
  const std::string body = "preamble\r\n--b  \r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--b--epilogue";
  auto parts = ParseMultipart(body, "b");
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 1u);
  EXPECT_EQ((*parts)[0].name, "x");
  EXPECT_EQ((*parts)[0].data, "1");
  auto none = ParseMultipart("--b--\r\n", "b");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

std::string ErrorOf(const std::string& body, MultipartLimits limits = {}) {
  auto parts = ParseMultipart(body, "b", limits);
  EXPECT_FALSE(parts.ok());
  return parts.ok() ? "" : parts.status().message();
}

TEST(ParseMultipartTest, MalformedBodies) {
  const std::string cd = "Content-Disposition: form-data; name=x\r\n\r\n";
  EXPECT_NE(ErrorOf("").find("no boundary delimiter"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\n" + cd + "value").find("no closing boundary"), std::string::npos);
  EXPECT_NE(ErrorOf("--bX\r\n" + cd + "v\r\n--b--").find("not followed by CRLF"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nContent-Disposition: form-data; name=x\r\n").find("do not end"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nno colon here\r\n\r\nv\r\n--b--").find("bad part header line"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nBad Name: 1\r\n\r\nv\r\n--b--").find("bad part header name"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\n\r\nv\r\n--b--").find("no Content-Disposition"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nContent-Disposition: attachment; name=x\r\n\r\nv\r\n--b--").find("not form-data"),
            std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nContent-Disposition: form-data\r\n\r\nv\r\n--b--").find("no name"), std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nContent-Disposition: form-data; name=\"x\r\n\r\nv\r\n--b--").find("unterminated"),
            std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\n" + cd + "v\r\n--b\r\n" + cd + "w\r\n--b--", {1, 16384}).find("more than 1 parts"),
            std::string::npos);
  EXPECT_NE(ErrorOf("--b\r\nX: " + std::string(100, 'a') + "\r\n" + cd + "v\r\n--b--", {10, 64}).find("longer than 64"),
            std::string::npos);
}

TEST(HeaderParamsTest, ValuesAndFlags) {
  auto p = ParseHeaderParams("form-data; NAME=\"a\\\\b\"; flag; ;filename= x.wav ");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->value, "form-data");
  ASSERT_NE(p->Find("name"), nullptr);
  EXPECT_EQ(*p->Find("name"), "a\\b");
  ASSERT_NE(p->Find("flag"), nullptr);
  EXPECT_EQ(*p->Find("flag"), "");
  EXPECT_EQ(*p->Find("filename"), "x.wav");
  EXPECT_FALSE(ParseHeaderParams("form-data; name=\"a\" junk").ok());
  EXPECT_FALSE(ParseHeaderParams("form-data; =v").ok());
}

}  // namespace
}  // namespace gemmad::server
