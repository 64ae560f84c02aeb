#include "io/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace gemmad::io {
namespace {

std::string Str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

TEST(Base64, DecodesPaddedAndUnpadded) {
  EXPECT_EQ(Str(*DecodeBase64("")), "");
  EXPECT_EQ(Str(*DecodeBase64("Zg==")), "f");
  EXPECT_EQ(Str(*DecodeBase64("Zm8=")), "fo");
  EXPECT_EQ(Str(*DecodeBase64("Zm9v")), "foo");
  EXPECT_EQ(Str(*DecodeBase64("Zm9v\nYmFy")), "foobar");
  auto bin = DecodeBase64("AP8A/w==");
  ASSERT_TRUE(bin.ok());
  EXPECT_EQ(*bin, (std::vector<uint8_t>{0, 255, 0, 255}));
}

TEST(Base64, EncodeRoundTrips) {
  EXPECT_EQ(EncodeBase64(""), "");
  EXPECT_EQ(EncodeBase64("f"), "Zg==");
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
  const std::string bin("\0\xff\x10", 3);
  EXPECT_EQ(Str(*DecodeBase64(EncodeBase64(bin))), bin);
}

TEST(Base64, RejectsMalformed) {
  EXPECT_FALSE(DecodeBase64("Zm9").ok());
  EXPECT_FALSE(DecodeBase64("Zm=v").ok());
  EXPECT_FALSE(DecodeBase64("Zm9$").ok());
  EXPECT_FALSE(DecodeBase64("====").ok());
}

}  // namespace
}  // namespace gemmad::io
