// The runner's vision encoder (runner/vision_encoder.h) on the golden inputs: built from the
// checkpoint by CreateGemma4VisionEncoder, it yields for an image item (and for the same patches
// as a video frame) exactly the VisionTower's rows, which match the transformers golden.
#include <gtest/gtest.h>

#include "kernels/thread_pool.h"
#include "mm/vision_input.h"
#include "model/safetensors_source.h"
#include "runner/vision_encoder.h"
#include "vision_golden_util.h"

namespace gemmad::runner {
namespace {

using model::gemma4::testing::GoldenImage;

std::shared_ptr<const mm::VisionPatches> Patches(const GoldenImage& im) {
  auto p = std::make_shared<mm::VisionPatches>();
  p->patch_size = 4;
  p->pooling_kernel = 3;
  p->grid_h = im.grid_h;
  p->grid_w = im.grid_w;
  p->pixels = im.pixels;
  p->positions = im.positions;
  return p;
}

TEST(VisionEncoderGolden, ImageAndVideoItemsGiveTheTowersRows) {
  kernels::ThreadPool pool(2);
  const kernels::ExecContext exec{&pool};
  auto src = model::OpenSafetensorsDir(golden::VisionGoldenRoot() + "/a");
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto enc = CreateGemma4VisionEncoder(std::shared_ptr<const model::WeightSource>(std::move(src).value()), exec);
  ASSERT_TRUE(enc.ok()) << enc.status().ToString();
  ASSERT_NE(*enc, nullptr);
  EXPECT_TRUE((*enc)->Supports(mm::Modality::kImage));
  EXPECT_TRUE((*enc)->Supports(mm::Modality::kVideo));
  EXPECT_FALSE((*enc)->Supports(mm::Modality::kAudio));
  auto images = model::gemma4::testing::LoadGoldenImages();
  ASSERT_TRUE(images.ok()) << images.status().ToString();
  auto golden = golden::GoldenFile::Load(golden::VisionGoldenRoot() + "/a/golden");
  ASSERT_TRUE(golden.ok());
  auto tower = model::gemma4::testing::LoadGoldenTower("a");
  ASSERT_TRUE(tower.ok());
  for (size_t i = 0; i < images->size(); ++i) {
    const GoldenImage& im = (*images)[i];
    std::vector<float> direct(static_cast<size_t>(im.num_soft_tokens * (*tower)->text_hidden()));
    ASSERT_TRUE((*tower)->Encode(exec, im.grid_h, im.grid_w, im.pixels, im.positions, direct).ok());
    for (mm::Modality m : {mm::Modality::kImage, mm::Modality::kVideo}) {
      mm::Item item;
      item.modality = m;
      item.placeholder_offset = 3;
      item.placeholder_length = im.num_soft_tokens;
      item.data = Patches(im);
      auto rows = (*enc)->Encode(item);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      EXPECT_EQ(*rows, direct) << "img" << i;
      auto want = golden->Array("img" + std::to_string(i) + ".embed");
      ASSERT_TRUE(want.ok());
      EXPECT_LE(model::gemma4::testing::RowRelativeError(*rows, want->values, (*tower)->text_hidden()),
                model::gemma4::testing::kVisionFinalTol);
    }
  }
}

}  // namespace
}  // namespace gemmad::runner
