// The Gemma 3 golden G1 (tests/golden/gemma3/g1, scripts/golden/make_gemma3_goldens.py) beyond the
// shared golden harness (golden_test.cc runs G1's layers, logits, decoding and greedy ids like
// T1-T3): what the golden covers (a last layer that is sliding, prompts longer than the window,
// linear RoPE on the full layers, norms as 1 + w, no Gemma 4 tensors), and the released
// checkpoints' older config layout (released_config.json: rope_theta, rope_local_base_freq,
// rope_scaling, sliding_window_pattern) giving bit-identical logits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "gemma4_golden.h"
#include "model/gemma4/checkpoint.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

namespace fs = std::filesystem;
using golden::Gemma4Golden;

std::vector<int32_t> Ids(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

std::vector<float> PrefillLogits(Model& m, const std::vector<int32_t>& ids) {
  testing::SequenceRunner r(m, 4, 64);
  return r.Step(0, ids, true);
}

TEST(Gemma3Golden, CoversWhatGemma3DoesDifferently) {
  auto g = Gemma4Golden::Load("g1", "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto ck = Checkpoint::Open(*g->CheckpointDir());
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  const Config& c = ck->config();
  EXPECT_EQ(c.family, Family::kGemma3);
  EXPECT_TRUE(c.is_sliding(c.num_hidden_layers - 1));  // the last layer is sliding, as in Gemma 3 1B
  EXPECT_EQ(c.rope_full.rope_type, "linear");
  EXPECT_NE(c.query_pre_attn_scalar, static_cast<double>(c.head_dim));
  for (const auto& p : g->prompts()) EXPECT_GT(static_cast<int64_t>(p.token_ids.size()), 2 * c.sliding_window);
  EXPECT_EQ(ck->Find("layers.0.layer_scalar"), nullptr);
  // The checkpoint's norm weights are w (multiplier 1 + w): some are negative, which Gemma 4's x̂·w
  // reading would turn into sign flips; the bound weights hold 1 + w.
  auto m = Model::Load(*g->CheckpointDir());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const tensor::TensorView& stored = ck->LayerTensor(0, "input_layernorm.weight");
  const tensor::TensorView& bound = (*m)->weights().layers[0].input_norm;
  ASSERT_EQ(bound.dtype, tensor::DType::kF32);
  bool negative = false;
  for (int64_t i = 0; i < c.hidden_size; ++i) {
    negative |= stored.As<const float>()[i] < 0;
    EXPECT_EQ(bound.As<const float>()[i], 1.0f + stored.As<const float>()[i]) << i;
  }
  EXPECT_TRUE(negative);
}

TEST(Gemma3Golden, ReleasedConfigLayoutGivesIdenticalLogits) {
  auto g = Gemma4Golden::Load("g1", "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const fs::path src = *g->CheckpointDir();
  const fs::path dir = fs::path(::testing::TempDir()) / ("gemmad_g1_released_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(src / "model.safetensors", dir / "model.safetensors");
  fs::copy_file(src / "generation_config.json", dir / "generation_config.json");
  fs::copy_file(src / "released_config.json", dir / "config.json");
  auto saved = Model::Load(src.string());
  auto released = Model::Load(dir.string());
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ((*released)->config().layer_types, (*saved)->config().layer_types);
  for (const auto& p : g->prompts()) {
    EXPECT_EQ(PrefillLogits(**released, Ids(p.token_ids)), PrefillLogits(**saved, Ids(p.token_ids))) << p.name;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gemmad::model::gemma4
