#include "api/media_prompt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gemmad::api {
namespace {

using ::testing::HasSubstr;

mm::PreparedVisual Visual(int64_t grid_h, int64_t grid_w, uint64_t tag) {
  auto p = std::make_shared<mm::VisionPatches>();
  p->patch_size = 16;
  p->pooling_kernel = 3;
  p->grid_h = grid_h;
  p->grid_w = grid_w;
  return mm::PreparedVisual{p, mm::ContentHash{tag, tag}};
}

mm::PreparedAudio Clip(int64_t frames, uint64_t tag) {
  auto f = std::make_shared<mm::AudioFeatures>();
  f->num_mels = 4;
  f->num_frames = frames;
  f->features.assign(static_cast<size_t>(frames * 4), 0.5f);
  mm::PreparedAudio a;
  a.features = f;
  a.hash = mm::ContentHash{tag, tag};
  a.source_samples = frames * 160 + 160;
  return a;
}

std::string Rep(const char* s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(MediaPromptTest, ExpandsImagesAndVideoFramesAsTheGemma4Processor) {
  LoadedMedia media;
  media.images = {Visual(6, 9, 1), Visual(3, 3, 2)};  // 2x3 = 6 and 1 soft tokens
  mm::PreparedVideo video;
  video.frames = {Visual(3, 6, 3), Visual(3, 6, 4)};  // 2 each
  video.timestamps = {"00:00", "00:01"};
  media.videos = {video};
  std::string text = "<bos>A<|image|>B<|video|>C<|image|>";
  ASSERT_FALSE(ExpandPlaceholders(media, &text).has_value());
  EXPECT_EQ(text, "<bos>A<|image>" + Rep("<|image|>", 6) + "<image|>B00:00 <|image>" + Rep("<|video|>", 2) +
                      "<image|> 00:01 <|image>" + Rep("<|video|>", 2) + "<image|>C<|image>" + Rep("<|image|>", 1) +
                      "<image|>");
}

TEST(MediaPromptTest, PlaceholderCountMustMatchTheParts) {
  LoadedMedia media;
  media.images = {Visual(3, 3, 1)};
  std::string text = "<|image|> and a literal <|image|>";
  auto e = ExpandPlaceholders(media, &text);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->status.message(), HasSubstr("2 image, 0 video and 0 audio placeholders for 1 image, 0 video and 0 audio inputs"));
}

TEST(MediaPromptTest, BuildsOneItemPerImageAndFrameFromTheTokenRuns) {
  MediaServing s;
  s.image_token_id = 7;
  s.video_token_id = 9;
  s.bidirectional_vision = true;
  LoadedMedia media;
  media.images = {Visual(3, 6, 1)};  // 2
  mm::PreparedVideo video;
  video.frames = {Visual(3, 3, 2), Visual(3, 3, 3)};  // 1 each
  video.timestamps = {"00:00", "00:01"};
  media.videos = {video};
  //                       0  1  2  3  4  5  6  7  8  9  10
  std::vector<int32_t> ids{2, 5, 9, 6, 1, 5, 9, 6, 5, 7, 7};
  std::vector<mm::Item> items;
  ASSERT_FALSE(BuildItems(s, media, ids, &items).has_value());
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].modality, mm::Modality::kVideo);
  EXPECT_EQ(items[0].placeholder_offset, 2);
  EXPECT_EQ(items[0].placeholder_length, 1);
  EXPECT_EQ(items[1].placeholder_offset, 6);
  EXPECT_EQ(items[2].modality, mm::Modality::kImage);
  EXPECT_EQ(items[2].placeholder_offset, 9);
  EXPECT_EQ(items[2].placeholder_length, 2);
  EXPECT_EQ(items[2].hash, (mm::ContentHash{1, 1}));
  EXPECT_TRUE(items[2].bidirectional);
  EXPECT_EQ(items[2].data, media.images[0].patches);
  EXPECT_TRUE(mm::ValidateItems(items, static_cast<int64_t>(ids.size())).ok());

  ids.push_back(7);  // a longer run than the image's soft tokens
  items.clear();
  EXPECT_TRUE(BuildItems(s, media, ids, &items).has_value());
}

TEST(MediaPromptTest, BudgetsAreVllmsFiveValues) {
  for (int b : {70, 140, 280, 560, 1120}) EXPECT_FALSE(CheckMaxSoftTokens(Json(b)).has_value());
  for (Json v : {Json(100), Json("280"), Json(280.5), Json(0)}) {
    auto e = CheckMaxSoftTokens(v);
    ASSERT_TRUE(e.has_value());
    EXPECT_THAT(e->status.message(), HasSubstr("Unsupported max_soft_tokens value"));
  }
}

}  // namespace
}  // namespace gemmad::api

namespace gemmad::api {
namespace {

TEST(MediaPromptTest, ExpandsAudioAsTheGemma4Processor) {
  LoadedMedia media;
  media.images = {Visual(3, 3, 1)};              // 1 soft token
  media.audios = {Clip(9, 2), Clip(4, 3)};       // ceil(9/4) = 3 and 1 soft tokens
  std::string text = "<bos><|audio|>A<|image|>B<|audio|>";
  ASSERT_FALSE(ExpandPlaceholders(media, &text).has_value());
  EXPECT_EQ(text, "<bos><|audio>" + Rep("<|audio|>", 3) + "<audio|>A<|image>" + Rep("<|image|>", 1) + "<image|>B" +
                      "<|audio>" + Rep("<|audio|>", 1) + "<audio|>");
  std::string missing = "<|audio|>";
  auto e = ExpandPlaceholders(media, &missing);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->status.message(), HasSubstr("0 image, 0 video and 1 audio placeholders for 1 image, 0 video and 2 audio"));
}

TEST(MediaPromptTest, AudioItemsAreNeverBidirectional) {
  MediaServing s;
  s.image_token_id = 7;
  s.audio_token_id = 8;
  s.bidirectional_vision = true;
  LoadedMedia media;
  media.images = {Visual(3, 3, 1)};  // 1
  media.audios = {Clip(5, 2)};       // 2
  //                       0  1  2  3  4  5  6
  std::vector<int32_t> ids{2, 8, 8, 3, 5, 7, 6};
  std::vector<mm::Item> items;
  ASSERT_FALSE(BuildItems(s, media, ids, &items).has_value());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].modality, mm::Modality::kAudio);
  EXPECT_EQ(items[0].placeholder_offset, 1);
  EXPECT_EQ(items[0].placeholder_length, 2);
  EXPECT_EQ(items[0].hash, (mm::ContentHash{2, 2}));
  EXPECT_FALSE(items[0].bidirectional);
  EXPECT_EQ(items[0].data, media.audios[0].features);
  EXPECT_TRUE(items[1].bidirectional);
  EXPECT_TRUE(mm::ValidateItems(items, static_cast<int64_t>(ids.size())).ok());

  ids[2] = 3;  // a run shorter than the clip's soft tokens
  items.clear();
  auto e = BuildItems(s, media, ids, &items);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->status.message(), HasSubstr("a run of 1 audio tokens for 2 soft tokens"));
}

TEST(MediaPromptTest, AudioWithoutATowerIsVllmsError) {
  MediaServing s;
  s.model_name = "google/gemma-4-31B-it";
  std::vector<MediaPart> parts(2);
  parts[1].modality = mm::Modality::kAudio;
  auto e = CheckAudioTower(s, parts);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status.message(),
            "Audio input was provided but the model 'google/gemma-4-31B-it' does not have an audio tower. Audio "
            "inference is only supported for Gemma4 models that include an audio_config (i.e., models that include an "
            "audio_config).");
  s.audio_tower = true;
  EXPECT_FALSE(CheckAudioTower(s, parts).has_value());
  parts.pop_back();
  s.audio_tower = false;
  EXPECT_FALSE(CheckAudioTower(s, parts).has_value());
}

}  // namespace
}  // namespace gemmad::api
