// The runner's vision encoder on random checkpoints: the factory's errors (no vision tower, a
// tensor missing), the items it refuses (another modality, other data, other patch geometry, a
// placeholder run of the wrong length) and the rows it yields for a good one.
#include "runner/vision_encoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "base/test_temp_path.h"
#include "mm/vision_input.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/safetensors_source.h"

namespace gemmad::runner {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const model::WeightSource> Checkpoint(const std::string& name, bool with_vision) {
  auto p = model::gemma4::FindPreset("t1");
  EXPECT_TRUE(p.ok());
  model::gemma4::Config c = p->config;
  if (with_vision) {
    model::gemma4::VisionConfig v;
    v.hidden_size = 16, v.intermediate_size = 32, v.num_hidden_layers = 1;
    v.num_attention_heads = v.num_key_value_heads = 2, v.head_dim = 8;
    v.patch_size = 2, v.position_embedding_size = 32;
    c.vision = v;
  }
  const std::string dir = TestTempPath(name);
  model::gemma4::RandomCheckpointOptions o;
  o.multimodal = true;
  EXPECT_TRUE(model::gemma4::WriteRandomCheckpoint(dir, c, o).ok());
  auto src = model::OpenSafetensorsDir(dir);
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  return std::shared_ptr<const model::WeightSource>(std::move(src).value());
}

std::shared_ptr<mm::VisionPatches> Patches(int64_t gh, int64_t gw) {
  auto p = std::make_shared<mm::VisionPatches>();
  p->patch_size = 2;
  p->pooling_kernel = 3;
  p->grid_h = gh;
  p->grid_w = gw;
  p->pixels.assign(static_cast<size_t>(gh * gw * 12), 0.25f);
  for (int64_t n = 0; n < gh * gw; ++n) {
    p->positions.push_back(static_cast<int32_t>(n % gw));
    p->positions.push_back(static_cast<int32_t>(n / gw));
  }
  for (size_t i = 0; i < p->pixels.size(); ++i) p->pixels[i] = static_cast<float>(i % 17) / 16.0f;
  return p;
}

mm::Item ImageItem(std::shared_ptr<const mm::ItemData> data, int64_t length) {
  mm::Item it;
  it.modality = mm::Modality::kImage;
  it.placeholder_offset = 1;
  it.placeholder_length = length;
  it.data = std::move(data);
  return it;
}

struct OtherData final : mm::ItemData {};

TEST(VisionEncoderTest, FactoryErrors) {
  auto none = CreateGemma4VisionEncoder(Checkpoint("ve_text", false), {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("has no vision tower"));
  EXPECT_THAT(CreateGemma4VisionEncoder(nullptr, {}).status().message(), HasSubstr("no weight source"));
}

TEST(VisionEncoderTest, EncodesGoodItemsAndRefusesBadOnes) {
  auto enc = CreateGemma4VisionEncoder(Checkpoint("ve_vision", true), {});
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  MultimodalEncoder& e = **enc;
  auto rows = e.Encode(ImageItem(Patches(6, 9), 6));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 6u * 64u);  // 6 soft tokens of t1's hidden size
  auto error = [&](const mm::Item& item) {
    auto r = e.Encode(item);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_THAT(error(ImageItem(Patches(6, 9), 5)), HasSubstr("5 placeholder tokens for 6 soft tokens (6x9 patches)"));
  mm::Item audio = ImageItem(Patches(6, 9), 6);
  audio.modality = mm::Modality::kAudio;
  EXPECT_THAT(error(audio), HasSubstr("cannot encode audio items"));
  EXPECT_THAT(error(ImageItem(std::make_shared<OtherData>(), 6)), HasSubstr("not image patches"));
  EXPECT_THAT(error(ImageItem(nullptr, 6)), HasSubstr("not image patches"));
  auto p16 = Patches(6, 9);
  p16->patch_size = 16;
  EXPECT_THAT(error(ImageItem(p16, 6)), HasSubstr("patch size 16 and pooling kernel 3, the vision tower uses 2 and 3"));
  auto short_pixels = Patches(6, 9);
  short_pixels->pixels.pop_back();
  EXPECT_THAT(error(ImageItem(short_pixels, 6)), HasSubstr("pixel values"));
}

}  // namespace
}  // namespace gemmad::runner
