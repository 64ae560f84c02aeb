// The vision tower against the transformers 5.25.0 goldens (scripts/golden/make_gemma4_vision_goldens.py)
// through the library, on the CPU backend and on the scalar reference backend: models a (clipped
// linears + standardize, bf16 checkpoint), b (plain, bf16) and c (head_dim 64, GQA, partly absent
// clip bounds, f32 checkpoint), three images each (40x56, 5x7 upscaled, 30x200 as the image
// processor prepares them). Checked: the patch embeddings and every encoder layer's output (models
// a, c), the pooled x sqrt(Dv) and post-standardize features, the projected soft tokens, and that
// images run one at a time equal the reference's padded two-image batch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

#include "kernels/backend.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/config.h"
#include "model/gemma4/vision_tower.h"
#include "model/safetensors_source.h"
#include "vision_golden.h"
#include "vision_golden_util.h"

namespace gemmad::model::gemma4 {
namespace {

using golden::GoldenFile;
using golden::VisionArray;
using testing::GoldenImage;
using testing::RowRelativeError;

// Row-relative error bounds: max |ours − golden| over a row ≤ tol · max |golden| of that row
// (measured errors and why these bounds: vision_golden_util.h).
constexpr double kLayerTol = testing::kVisionLayerTol;
constexpr double kFinalTol = testing::kVisionFinalTol;

using ModelAndBackend = std::tuple<std::string, std::string>;

class VisionGolden : public ::testing::TestWithParam<ModelAndBackend> {
 protected:
  void SetUp() override {
    const auto& [model, backend] = GetParam();
    auto tower = testing::LoadGoldenTower(model);
    ASSERT_TRUE(tower.ok()) << tower.status().ToString();
    tower_ = std::move(tower).value();
    auto g = GoldenFile::Load(golden::VisionGoldenRoot() + "/" + testing::GoldenModelDir(model) + "/golden");
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    golden_ = std::make_unique<GoldenFile>(std::move(g).value());
    auto images = testing::LoadGoldenImages();
    ASSERT_TRUE(images.ok()) << images.status().ToString();
    images_ = std::move(images).value();
    exec_.backend = kernels::FindBackend(backend);
    ASSERT_NE(exec_.backend, nullptr);
    if (backend == "cpu") exec_.pool = &pool_;
  }

  VisionArray Golden(const std::string& key) {
    auto a = golden_->Array(key);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? std::move(a).value() : VisionArray{};
  }

  std::vector<float> Encode(const GoldenImage& im, VisionTrace* trace) {
    std::vector<float> out(static_cast<size_t>(im.num_soft_tokens * tower_->text_hidden()));
    Status s = tower_->Encode(exec_, im.grid_h, im.grid_w, im.pixels, im.positions, out, trace);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  kernels::ThreadPool pool_{2};
  kernels::ExecContext exec_;
  std::unique_ptr<VisionTower> tower_;
  std::unique_ptr<GoldenFile> golden_;
  std::vector<GoldenImage> images_;
};

TEST_P(VisionGolden, EveryBlockMatchesTransformers) {
  const int64_t dv = tower_->config().hidden_size;
  for (size_t i = 0; i < images_.size(); ++i) {
    const GoldenImage& im = images_[i];
    SCOPED_TRACE("img" + std::to_string(i));
    VisionTrace trace;
    const std::vector<float> out = Encode(im, &trace);
    const std::string p = "img" + std::to_string(i) + ".";
    if (golden_->Has(p + "patch_embeddings")) {
      const VisionArray pe = Golden(p + "patch_embeddings");
      ASSERT_EQ(pe.rows(), im.num_patches());
      EXPECT_LE(RowRelativeError(trace.patch_embeddings, pe.values, dv), kLayerTol) << "patch embeddings";
      ASSERT_EQ(trace.layers.size(), static_cast<size_t>(tower_->config().num_hidden_layers));
      for (size_t l = 0; l < trace.layers.size(); ++l) {
        const VisionArray want = Golden(p + "layer" + std::to_string(l));
        EXPECT_LE(RowRelativeError(trace.layers[l], want.values, dv), kLayerTol) << "encoder layer " << l;
      }
    }
    const VisionArray pooled = Golden(p + "pooled"), standardized = Golden(p + "standardized"), embed = Golden(p + "embed");
    ASSERT_EQ(pooled.rows(), im.num_soft_tokens);
    EXPECT_LE(RowRelativeError(trace.pooled, pooled.values, dv), kFinalTol) << "pooled";
    EXPECT_LE(RowRelativeError(trace.standardized, standardized.values, dv), kFinalTol) << "standardized";
    ASSERT_EQ(embed.cols(), tower_->text_hidden());
    EXPECT_LE(RowRelativeError(out, embed.values, tower_->text_hidden()), kFinalTol) << "embed_vision output";
  }
}

TEST_P(VisionGolden, ImagesAloneEqualTheReferencesPaddedBatch) {
  std::vector<float> ours;
  for (int i : {0, 2}) {
    const std::vector<float> one = Encode(images_[static_cast<size_t>(i)], nullptr);
    ours.insert(ours.end(), one.begin(), one.end());
  }
  EXPECT_LE(RowRelativeError(ours, Golden("batch.embed").values, tower_->text_hidden()), kFinalTol);
}

INSTANTIATE_TEST_SUITE_P(Models, VisionGolden,
                         ::testing::Combine(::testing::Values("a", "b", "c", "a_gguf", "c_gguf"),
                                            ::testing::Values("cpu", "reference")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

TEST(VisionGoldenConfig, TransformersWrittenConfigParses) {
  // transformers saves the vision rope_type "default" as "axial"; model c has GQA and head_dim 64.
  auto src = OpenSafetensorsDir(golden::VisionGoldenRoot() + "/c");
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto c = ParseConfig((*src)->config_json());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->vision.has_value());
  EXPECT_EQ(c->vision->rope_type, "axial");
  EXPECT_EQ(c->vision->head_dim, 64);
  EXPECT_EQ(c->vision->num_attention_heads, 2);
  EXPECT_EQ(c->vision->num_key_value_heads, 1);
  EXPECT_TRUE(c->vision->use_clipped_linears);
  EXPECT_FALSE(c->vision->standardize);
  EXPECT_EQ(c->vision->default_output_length, 280);  // absent from transformers' config: the default
  EXPECT_EQ(c->hidden_size, 64);
  auto direct = ParseVisionConfig((*src)->config_json());
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(*direct, c->vision);
}

TEST(VisionGoldenConfig, MmprojConfigEqualsTheCheckpoints) {
  // What an mmproj's metadata and tensor shapes say (and llama.cpp's fixed values for the rest)
  // is the checkpoint's vision_config, field for field; the media token ids come from the text
  // GGUF's vocabulary.
  for (const std::string model : {"a", "c"}) {
    SCOPED_TRACE(model);
    auto want = testing::OpenGoldenTowerSource(golden::VisionGoldenRoot(), model);
    auto got = testing::OpenGoldenTowerSource(golden::VisionGoldenRoot(), model + "_gguf");
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    auto cw = ParseConfig((*want)->config_json());
    auto cg = ParseConfig((*got)->config_json());
    ASSERT_TRUE(cw.ok()) << cw.status().ToString();
    ASSERT_TRUE(cg.ok()) << cg.status().ToString() << (*got)->config_json();
    ASSERT_TRUE(cg->vision.has_value());
    EXPECT_EQ(*cg->vision, *cw->vision);
    EXPECT_EQ(cg->image_token_id, 4);  // <|image|> in gguf_mmproj's vocabulary
    EXPECT_EQ(cg->video_token_id, 10);
    EXPECT_EQ(cg->audio.has_value(), model == "a");  // a shares its mmproj with audio tower b
  }
}

}  // namespace
}  // namespace gemmad::model::gemma4
