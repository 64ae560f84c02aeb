// VisionTower on random checkpoints written by the torch-free writer: input validation (every bad
// input is an InvalidArgument naming the problem), weight binding errors naming the tensor, the
// properties of the math (patch order does not matter, the thread count does not change a bit,
// a real-size image on the e2e tower gives finite, distinct rows) and the trace's shapes.
#include "model/gemma4/vision_tower.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/rng.h"
#include "base/test_temp_path.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/safetensors_source.h"

namespace gemmad::model::gemma4 {
namespace {

using ::testing::HasSubstr;

// A tiny text model (t1) with a tiny tower: patch 4, clipping and standardize on.
Config TinyConfig() {
  auto p = FindPreset("t1");
  EXPECT_TRUE(p.ok());
  Config c = p->config;
  VisionConfig v;
  v.hidden_size = 24, v.intermediate_size = 40, v.num_hidden_layers = 2;
  v.num_attention_heads = 3, v.num_key_value_heads = 3, v.head_dim = 8;
  v.patch_size = 4, v.position_embedding_size = 64, v.use_clipped_linears = true, v.standardize = true;
  c.vision = v;
  return c;
}

std::shared_ptr<const WeightSource> WriteAndOpen(const Config& c, const std::string& name,
                                                 tensor::DType dtype = tensor::DType::kF32) {
  const std::string dir = TestTempPath(name);
  RandomCheckpointOptions o;
  o.dtype = dtype;
  o.multimodal = true;
  o.seed = 7;
  Status s = WriteRandomCheckpoint(dir, c, o);
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto src = OpenSafetensorsDir(dir);
  EXPECT_TRUE(src.ok()) << src.status().ToString();
  return std::shared_ptr<const WeightSource>(std::move(src).value());
}

struct Image {
  int64_t gh, gw;
  std::vector<float> pixels;
  std::vector<int32_t> positions;
};

Image RandomImage(int64_t gh, int64_t gw, int64_t patch, uint64_t seed) {
  Image im{gh, gw, {}, {}};
  Rng rng(seed);
  im.pixels.resize(static_cast<size_t>(gh * gw * 3 * patch * patch));
  for (float& p : im.pixels) p = static_cast<float>(rng.Uniform());
  for (int64_t n = 0; n < gh * gw; ++n) {
    im.positions.push_back(static_cast<int32_t>(n % gw));
    im.positions.push_back(static_cast<int32_t>(n / gw));
  }
  return im;
}

class VisionTowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = TinyConfig();
    auto t = VisionTower::Load(WriteAndOpen(config_, "vt_tiny"), *config_.vision, config_.hidden_size);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tower_ = std::move(t).value();
  }
  Status Encode(const Image& im, std::vector<float>* out, const kernels::ExecContext& ctx = {},
                VisionTrace* trace = nullptr) {
    out->assign(static_cast<size_t>(tower_->NumSoftTokens(im.gh, im.gw) * config_.hidden_size), 0.0f);
    return tower_->Encode(ctx, im.gh, im.gw, im.pixels, im.positions, *out, trace);
  }
  Config config_;
  std::unique_ptr<VisionTower> tower_;
};

TEST_F(VisionTowerTest, RejectsBadInputNamingTheProblem) {
  const Image good = RandomImage(6, 9, 4, 1);
  std::vector<float> out(static_cast<size_t>(6 * config_.hidden_size));
  auto error = [&](int64_t gh, int64_t gw, const std::vector<float>& px, const std::vector<int32_t>& pos,
                   size_t out_size) {
    std::vector<float> o(out_size);
    Status s = tower_->Encode({}, gh, gw, px, pos, o);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    return s.message();
  };
  EXPECT_THAT(error(6, 8, good.pixels, good.positions, out.size()), HasSubstr("multiples of the pooling kernel 3"));
  EXPECT_THAT(error(0, 9, {}, {}, 0), HasSubstr("0x9 patch grid"));
  EXPECT_THAT(error(6, 9, std::vector<float>(10), good.positions, out.size()), HasSubstr("10 pixel values for 54"));
  EXPECT_THAT(error(6, 9, good.pixels, std::vector<int32_t>(4), out.size()), HasSubstr("4 position values"));
  EXPECT_THAT(error(6, 9, good.pixels, good.positions, out.size() - 1), HasSubstr("soft tokens of width"));
  std::vector<int32_t> outside = good.positions;
  outside[2 * 5] = 9;  // x = 9 in a 9-wide grid
  EXPECT_THAT(error(6, 9, good.pixels, outside, out.size()), HasSubstr("outside the 6x9 grid"));
  std::vector<int32_t> repeated = good.positions;
  repeated[2 * 7] = repeated[2 * 6];  // patch 7 at patch 6's cell
  EXPECT_THAT(error(6, 9, good.pixels, repeated, out.size()), HasSubstr("both sit at"));
  EXPECT_THAT(error(66, 3, {}, {}, 0), HasSubstr("exceeds the position table (64 entries)"));
  Config wide = config_;  // a table wide enough for a grid of 1121 soft tokens
  wide.vision->position_embedding_size = 4096;
  auto big = VisionTower::Load(WriteAndOpen(wide, "vt_wide"), *wide.vision, wide.hidden_size);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  std::vector<float> o(static_cast<size_t>(1121 * config_.hidden_size));
  Status s = (*big)->Encode({}, 3, 3363, {}, {}, o);
  EXPECT_THAT(s.message(), HasSubstr("1121 soft tokens exceed the largest budget (1120)"));
}

TEST_F(VisionTowerTest, PatchOrderDoesNotMatter) {
  // Attention is bidirectional and pooling follows the positions: shuffling the patch rows (with
  // their positions) changes only the order of floating-point sums.
  const Image im = RandomImage(6, 9, 4, 2);
  Image shuffled = im;
  std::vector<int64_t> perm(static_cast<size_t>(im.gh * im.gw));
  std::iota(perm.begin(), perm.end(), 0);
  Rng rng(3);
  for (int64_t i = static_cast<int64_t>(perm.size()) - 1; i > 0; --i) std::swap(perm[i], perm[rng.Below(i + 1)]);
  const size_t row = 48;
  for (size_t n = 0; n < perm.size(); ++n) {
    const auto src = static_cast<size_t>(perm[n]);
    std::copy_n(im.pixels.begin() + static_cast<std::ptrdiff_t>(src * row), row,
                shuffled.pixels.begin() + static_cast<std::ptrdiff_t>(n * row));
    shuffled.positions[2 * n] = im.positions[2 * src];
    shuffled.positions[2 * n + 1] = im.positions[2 * src + 1];
  }
  std::vector<float> a, b;
  ASSERT_TRUE(Encode(im, &a).ok());
  ASSERT_TRUE(Encode(shuffled, &b).ok());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4 * (1 + std::fabs(a[i]))) << i;
}

TEST_F(VisionTowerTest, ThreadsDoNotChangeABitAndTheTraceHasEveryBlock) {
  const Image im = RandomImage(9, 12, 4, 4);
  kernels::ThreadPool pool(3);
  std::vector<float> one, three;
  VisionTrace trace;
  ASSERT_TRUE(Encode(im, &one).ok());
  ASSERT_TRUE(Encode(im, &three, kernels::ExecContext{&pool}, &trace).ok());
  EXPECT_EQ(one, three);
  const size_t P = 9 * 12, N = 12, dv = 24;
  EXPECT_EQ(trace.patch_embeddings.size(), P * dv);
  ASSERT_EQ(trace.layers.size(), 2u);
  for (const auto& l : trace.layers) EXPECT_EQ(l.size(), P * dv);
  EXPECT_EQ(trace.pooled.size(), N * dv);
  EXPECT_EQ(trace.standardized.size(), N * dv);
  EXPECT_NE(trace.pooled, trace.standardized);  // standardize is on
  // Soft token 0 averages the top-left 3x3 block of the last layer's output, times sqrt(Dv).
  for (size_t j = 0; j < dv; ++j) {
    double sum = 0;
    for (size_t y = 0; y < 3; ++y) {
      for (size_t x = 0; x < 3; ++x) sum += trace.layers[1][(y * 12 + x) * dv + j];
    }
    EXPECT_NEAR(trace.pooled[j], sum / 9 * std::sqrt(24.0), 1e-4 * (1 + std::fabs(sum)));
  }
}

TEST(VisionTowerE2e, RealSizeImageGivesDistinctFiniteRows) {
  // The e2e preset's tower (patch 16, 10240-entry table) on a 768x768 image at budget 280 (48x48
  // patches -> 256 soft tokens), as the server would run it.
  auto p = FindPreset("e2e");
  ASSERT_TRUE(p.ok());
  Config c = p->config;
  c.vocab_size = c.vocab_size_per_layer_input = 512;  // the text part is not read here
  auto t = VisionTower::Load(WriteAndOpen(c, "vt_e2e", tensor::DType::kBF16), *c.vision, c.hidden_size);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  const Image im = RandomImage(48, 48, 16, 5);
  kernels::ThreadPool pool(2);
  std::vector<float> out(static_cast<size_t>(256 * c.hidden_size));
  ASSERT_TRUE((*t)->Encode(kernels::ExecContext{&pool}, 48, 48, im.pixels, im.positions, out).ok());
  double sum = 0, sq = 0;
  for (float v : out) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(out.size());
  const double stddev = std::sqrt(sq / static_cast<double>(out.size()) - mean * mean);
  EXPECT_GT(stddev, 0.1);
  const auto row = [&](int64_t r) {
    return std::vector<float>(out.begin() + r * c.hidden_size, out.begin() + (r + 1) * c.hidden_size);
  };
  for (int64_t r = 1; r < 256; ++r) EXPECT_NE(row(r), row(0)) << r;
}

TEST(VisionWeightsTest, BindingErrorsNameTheTensor) {
  const Config c = TinyConfig();
  auto src = WriteAndOpen(c, "vt_errors");
  auto error = [&](const VisionConfig& v, int64_t text_hidden) {
    auto t = VisionTower::Load(src, v, text_hidden);
    EXPECT_FALSE(t.ok());
    return t.ok() ? std::string() : t.status().message();
  };
  VisionConfig v = *c.vision;
  v.use_clipped_linears = false;
  EXPECT_THAT(error(v, c.hidden_size), HasSubstr("unexpected tensor 'model.vision_tower.encoder.layers.0.mlp.down_proj."
                                                 "input_max'"));
  EXPECT_THAT(error(v, c.hidden_size), HasSubstr("use_clipped_linears is false"));
  v = *c.vision;
  v.standardize = false;
  EXPECT_THAT(error(v, c.hidden_size), HasSubstr("'model.vision_tower.std_bias'"));
  v = *c.vision;
  v.num_hidden_layers = 3;
  EXPECT_THAT(error(v, c.hidden_size), HasSubstr("missing tensor 'model.vision_tower.encoder.layers.2."));
  v = *c.vision;
  v.intermediate_size = 48;
  EXPECT_THAT(error(v, c.hidden_size), HasSubstr("'model.vision_tower.encoder.layers.0.mlp.gate_proj.linear.weight' "
                                                 "has shape [40, 24], the vision config implies [48, 24]"));
  EXPECT_THAT(error(*c.vision, 32), HasSubstr("'model.embed_vision.embedding_projection.weight' has shape [64, 24]"));
  EXPECT_THAT(error(*c.vision, 0), HasSubstr("text hidden size 0"));
}

}  // namespace
}  // namespace gemmad::model::gemma4
