// The audio tower against the transformers 5.25.0 goldens (scripts/golden/make_gemma4_audio_goldens.py)
// through the library, on the CPU backend and on the scalar reference backend: model a (§8.3's
// tiny tower, chunk 4 / left 5 / cap 5, every linear clipped, bf16 checkpoint) on a 0.37 s, a 1.0 s
// and a one-frame clip, model b (the released chunking constants 12 / 13 / 0, cap 50, clip bounds
// on q/k/v only, f32) on the 1.0 s and a 5.0 s clip. Checked per clip: the SSCP output, every
// conformer block's output, output_proj's output and the projected soft tokens.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <tuple>

#include "audio_golden_util.h"
#include "kernels/backend.h"
#include "kernels/thread_pool.h"
#include "vision_golden_util.h"

namespace gemmad::model::gemma4 {
namespace {

using golden::GoldenFile;
using testing::GoldenClip;
using testing::RowRelativeError;

// Row-relative error bounds (RowRelativeError: max |ours − golden| over a row ≤ tol · max |golden|
// of that row). Measured with the transformers 5.25.0 goldens: per block up to 9.0e-7 (CPU
// backend, its linears on kernels::LinearGemm) / 1.0e-6 (reference backend), final outputs
// (output_proj, embed) up to 9.4e-7 / 8.7e-7. A wrong block lands far outside: 13 keys instead of
// 12 gives 0.3 per block on both models.
constexpr double kLayerTol = 1e-5;
constexpr double kFinalTol = 1e-5;

using ModelAndBackend = std::tuple<std::string, std::string>;

class AudioGolden : public ::testing::TestWithParam<ModelAndBackend> {
 protected:
  void SetUp() override {
    const auto& [model, backend] = GetParam();
    auto tower = testing::LoadGoldenAudioTower(model);
    ASSERT_TRUE(tower.ok()) << tower.status().ToString();
    tower_ = std::move(tower).value();
    auto g = GoldenFile::Load(golden::AudioGoldenRoot() + "/" + testing::GoldenModelDir(model) + "/golden");
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    golden_ = std::make_unique<GoldenFile>(std::move(g).value());
    auto clips = testing::LoadGoldenClips();
    ASSERT_TRUE(clips.ok()) << clips.status().ToString();
    clips_ = std::move(clips).value();
    exec_.backend = kernels::FindBackend(backend);
    ASSERT_NE(exec_.backend, nullptr);
    if (backend == "cpu") exec_.pool = &pool_;
  }

  // The golden array `key` against `got` (rows of `cols`); records the worst error.
  void Expect(const std::string& key, const std::vector<float>& got, int64_t cols, double tol, double* worst) {
    auto want = golden_->Array(key);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const double err = RowRelativeError(got, want->values, cols);
    EXPECT_LE(err, tol) << key;
    *worst = std::max(*worst, err);
  }

  kernels::ThreadPool pool_{2};
  kernels::ExecContext exec_;
  std::unique_ptr<AudioTower> tower_;
  std::unique_ptr<GoldenFile> golden_;
  std::vector<GoldenClip> clips_;
};

TEST_P(AudioGolden, EveryBlockMatchesTransformers) {
  const AudioConfig& c = tower_->config();
  double layer_worst = 0, final_worst = 0;
  int checked = 0;
  for (size_t i = 0; i < clips_.size(); ++i) {
    const std::string p = "clip" + std::to_string(i) + ".";
    if (!golden_->Has(p + "embed")) continue;
    SCOPED_TRACE(p);
    const GoldenClip& clip = clips_[i];
    ASSERT_EQ(AudioTower::NumSoftTokens(clip.num_frames), clip.num_soft_tokens);
    std::vector<float> out(static_cast<size_t>(clip.num_soft_tokens * tower_->text_hidden()));
    AudioTrace trace;
    const Status s = tower_->Encode(exec_, clip.num_frames, clip.features, out, &trace);
    ASSERT_TRUE(s.ok()) << s.ToString();
    Expect(p + "sscp", trace.subsampled, c.hidden_size, kLayerTol, &layer_worst);
    ASSERT_EQ(trace.layers.size(), static_cast<size_t>(c.num_hidden_layers));
    for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
      Expect(p + "layer" + std::to_string(l), trace.layers[static_cast<size_t>(l)], c.hidden_size, kLayerTol,
             &layer_worst);
    }
    Expect(p + "output_proj", trace.output_proj, c.output_proj_dims, kFinalTol, &final_worst);
    Expect(p + "embed", out, tower_->text_hidden(), kFinalTol, &final_worst);
    ++checked;
  }
  EXPECT_GE(checked, 2);
  std::printf("[measured] %s/%s: per block %.3g, final %.3g\n", std::get<0>(GetParam()).c_str(),
              std::get<1>(GetParam()).c_str(), layer_worst, final_worst);
}

TEST(AudioGoldenConfig, MmprojConfigEqualsTheCheckpoints) {
  // Model b has the released chunking constants, which an mmproj does not store and llama.cpp
  // fixes: its audio_config read from the mmproj is the checkpoint's, field for field.
  auto want = testing::OpenGoldenAudioModel("b");
  auto got = testing::OpenGoldenAudioModel("b_gguf");
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto cw = ParseConfig((*want)->config_json());
  auto cg = ParseConfig((*got)->config_json());
  ASSERT_TRUE(cw.ok() && cg.ok());
  ASSERT_TRUE(cg->audio.has_value());
  EXPECT_EQ(*cg->audio, *cw->audio);
  EXPECT_EQ(cg->audio_token_id, 7);  // <|audio|> in gguf_mmproj's vocabulary
}

INSTANTIATE_TEST_SUITE_P(ModelsAndBackends, AudioGolden,
                         ::testing::Combine(::testing::Values("a", "b", "b_gguf"), ::testing::Values("cpu", "reference")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace gemmad::model::gemma4
