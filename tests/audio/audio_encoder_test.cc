// The runner's audio encoder (runner/audio_encoder.h) on the golden inputs: built from the
// checkpoint by CreateGemma4AudioEncoder, it yields for an audio item exactly the AudioTower's
// rows, which match the transformers golden; and its contract checks: other modalities, other
// item data, another mel count, a placeholder run of the wrong length, a checkpoint without an
// audio tower (NotFound), a clip of no frames.
#include <gtest/gtest.h>

#include "audio_golden_util.h"
#include "kernels/thread_pool.h"
#include "mm/audio_input.h"
#include "mm/vision_input.h"
#include "runner/audio_encoder.h"
#include "vision_golden_util.h"

namespace gemmad::runner {
namespace {

using model::gemma4::testing::GoldenClip;

std::shared_ptr<const mm::AudioFeatures> Features(const GoldenClip& c, int64_t mels = 16) {
  auto f = std::make_shared<mm::AudioFeatures>();
  f->num_mels = mels;
  f->num_frames = c.num_frames;
  f->features = c.features;
  return f;
}

mm::Item AudioItem(std::shared_ptr<const mm::ItemData> data, int64_t length) {
  mm::Item item;
  item.modality = mm::Modality::kAudio;
  item.placeholder_offset = 4;
  item.placeholder_length = length;
  item.data = std::move(data);
  return item;
}

class AudioEncoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto src = model::gemma4::testing::OpenGoldenAudioModel("a");
    ASSERT_TRUE(src.ok()) << src.status().ToString();
    auto enc = CreateGemma4AudioEncoder(*src, exec_);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    enc_ = std::move(enc).value();
    ASSERT_NE(enc_, nullptr);
    auto clips = model::gemma4::testing::LoadGoldenClips();
    ASSERT_TRUE(clips.ok()) << clips.status().ToString();
    clips_ = std::move(clips).value();
  }

  kernels::ThreadPool pool_{2};
  kernels::ExecContext exec_{&pool_};
  std::unique_ptr<MultimodalEncoder> enc_;
  std::vector<GoldenClip> clips_;
};

TEST_F(AudioEncoderTest, AudioItemsGiveTheTowersRows) {
  EXPECT_TRUE(enc_->Supports(mm::Modality::kAudio));
  EXPECT_FALSE(enc_->Supports(mm::Modality::kImage));
  EXPECT_FALSE(enc_->Supports(mm::Modality::kVideo));
  auto golden = golden::GoldenFile::Load(golden::AudioGoldenRoot() + "/a/golden");
  ASSERT_TRUE(golden.ok());
  auto tower = model::gemma4::testing::LoadGoldenAudioTower("a");
  ASSERT_TRUE(tower.ok());
  for (size_t i = 0; i < 3; ++i) {
    const GoldenClip& c = clips_[i];
    std::vector<float> direct(static_cast<size_t>(c.num_soft_tokens * (*tower)->text_hidden()));
    ASSERT_TRUE((*tower)->Encode(exec_, c.num_frames, c.features, direct).ok());
    auto rows = enc_->Encode(AudioItem(Features(c), c.num_soft_tokens));
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    EXPECT_EQ(*rows, direct) << "clip" << i;
    auto want = golden->Array("clip" + std::to_string(i) + ".embed");
    ASSERT_TRUE(want.ok());
    EXPECT_LE(model::gemma4::testing::RowRelativeError(*rows, want->values, (*tower)->text_hidden()), 1e-5);
  }
}

TEST_F(AudioEncoderTest, RejectsWhatItCannotEncode) {
  const GoldenClip& c = clips_[1];
  auto expect_invalid = [&](const mm::Item& item, const std::string& needle) {
    auto r = enc_->Encode(item);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().ToString();
  };
  mm::Item image = AudioItem(Features(c), c.num_soft_tokens);
  image.modality = mm::Modality::kImage;
  expect_invalid(image, "cannot encode image");
  expect_invalid(AudioItem(std::make_shared<mm::VisionPatches>(), c.num_soft_tokens), "not audio features");
  expect_invalid(AudioItem(nullptr, c.num_soft_tokens), "not audio features");
  expect_invalid(AudioItem(Features(c, 128), c.num_soft_tokens), "128 mel bins");
  expect_invalid(AudioItem(Features(c), c.num_soft_tokens + 1), "placeholder tokens");
  auto bad = std::make_shared<mm::AudioFeatures>(*Features(c));
  bad->features.pop_back();  // fewer values than frames x mels
  expect_invalid(AudioItem(bad, c.num_soft_tokens), "feature values");
  auto too_long = std::make_shared<mm::AudioFeatures>();
  too_long->num_mels = 16;
  too_long->num_frames = 3000;
  too_long->features.assign(3000 * 16, 0.0f);
  expect_invalid(AudioItem(too_long, 750), "3000 feature frames");
}

TEST_F(AudioEncoderTest, AClipWithoutFramesHasNoRows) {
  auto empty = std::make_shared<mm::AudioFeatures>();
  empty->num_mels = 16;
  auto rows = enc_->Encode(AudioItem(empty, 0));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
}

TEST(AudioEncoderCreate, ACheckpointWithoutAnAudioTowerIsNotFound) {
  auto src = model::OpenSafetensorsDir(golden::VisionGoldenRoot() + "/a");
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto enc = CreateGemma4AudioEncoder(std::shared_ptr<const model::WeightSource>(std::move(src).value()), {});
  ASSERT_FALSE(enc.ok());
  EXPECT_EQ(enc.status().code(), StatusCode::kNotFound);
  EXPECT_NE(enc.status().message().find("no audio tower"), std::string::npos) << enc.status().ToString();
  EXPECT_EQ(CreateGemma4AudioEncoder(nullptr, {}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gemmad::runner
