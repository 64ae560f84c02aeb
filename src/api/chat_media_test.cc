#include "api/chat_media.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gemmad::api {
namespace {

using ::testing::HasSubstr;

Json Messages(const std::string& parts) {
  return Json::parse(R"([{"role":"system","content":"s"},{"role":"user","content":[)" + parts + "]}]");
}

TEST(ChatMediaTest, ListsEveryFormInOrderAndRewritesThemForTheTemplate) {
  Json m = Messages(R"({"type":"image_url","image_url":{"url":"https://x/a.jpg","detail":"high"}},)"
                    R"({"type":"text","text":"t"},)"
                    R"({"type":"image_url","image_url":"data:image/png;base64,AAAA"},)"
                    R"({"image_url":{"url":"file:///m/b.png"}},)"
                    R"({"type":"input_image","image_url":"https://x/c.jpg"},)"
                    R"({"type":"video_url","video_url":{"url":"https://x/v.mp4"}},)"
                    R"({"type":"audio_url","audio_url":{"url":"https://x/a.ogg"}},)"
                    R"({"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}},)"
                    R"({"type":"image_url","image_url":null})");
  std::vector<MediaPart> parts;
  ASSERT_FALSE(ExtractMediaParts(&m, &parts).has_value());
  ASSERT_EQ(parts.size(), 7u);
  EXPECT_EQ(parts[0].url, "https://x/a.jpg");
  EXPECT_EQ(parts[0].location, "messages[1].content[0]");
  EXPECT_EQ(parts[1].url, "data:image/png;base64,AAAA");
  EXPECT_EQ(parts[2].url, "file:///m/b.png");
  EXPECT_EQ(parts[3].url, "https://x/c.jpg");
  EXPECT_EQ(parts[4].modality, mm::Modality::kVideo);
  EXPECT_EQ(parts[5].modality, mm::Modality::kAudio);
  EXPECT_EQ(parts[6].audio_data, "AAAA");
  EXPECT_EQ(parts[6].audio_format, "wav");
  const Json& c = m[1]["content"];
  ASSERT_EQ(c.size(), 8u);  // the null-payload part is gone; the others are kept as sent
  EXPECT_EQ(c[0]["type"], "image_url");
  EXPECT_EQ(c[5]["type"], "video_url");
}

TEST(ChatMediaTest, LocationsNameTheRequestsIndicesAfterASkippedPart) {
  Json m = Messages(R"({"type":"image_url","image_url":null},{"type":"image_url","image_url":"x"})");
  std::vector<MediaPart> parts;
  ASSERT_FALSE(ExtractMediaParts(&m, &parts).has_value());
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].location, "messages[1].content[1]");
  EXPECT_EQ(m[1]["content"].size(), 1u);
}

TEST(ChatMediaTest, MalformedAndUnsupportedPartsNameThePart) {
  for (auto [part, needle] : std::vector<std::pair<std::string, std::string>>{
           {R"({"type":"image_url"})", "messages[1].content[0]: a 'image_url' part needs a 'image_url' field"},
           {R"({"type":"image_url","image_url":{"uri":"x"}})", "must be a URL string"},
           {R"({"type":"input_audio","input_audio":{"format":"wav"}})", "base64 'data'"},
           {R"({"type":"image_embeds","image_embeds":"AAAA"})", "'image_embeds' parts are not supported"}}) {
    Json m = Messages(part);
    std::vector<MediaPart> parts;
    auto e = ExtractMediaParts(&m, &parts);
    ASSERT_TRUE(e.has_value()) << part;
    EXPECT_THAT(e->status.message(), HasSubstr(needle));
    EXPECT_EQ(e->param, "messages");
  }
}

TEST(ChatMediaTest, PerPromptLimitsUseVllmsText) {
  std::vector<MediaPart> parts(3);
  parts[2].modality = mm::Modality::kVideo;
  EXPECT_FALSE(CheckMediaCounts(parts, {}).has_value());
  EXPECT_FALSE(CheckMediaCounts(parts, {{"image", 2}, {"video", 1}}).has_value());
  auto e = CheckMediaCounts(parts, {{"image", 1}});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status.message(), "At most 1 image(s) may be provided in one prompt.");
  EXPECT_EQ(e->param, "image");
  auto v = CheckMediaCounts(parts, {{"video", 0}});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->status.message(), "At most 0 video(s) may be provided in one prompt.");
}

}  // namespace
}  // namespace gemmad::api
