// Round trips through the random checkpoint writer and Checkpoint::Open: every preset-sized tiny
// model, both dtypes, both prefixes, single and sharded, with and without unused KV tensors.
#include "model/gemma4/checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>
#include <unistd.h>

#include "base/test_temp_path.h"
#include "base/files.h"
#include "io/safetensors.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "tensor/half.h"

namespace gemmad::model::gemma4 {
namespace {

std::string TempPath(const std::string& name) { return TestTempPath(name); }

using ::testing::HasSubstr;

std::string Write(const std::string& name, const std::string& preset, RandomCheckpointOptions o) {
  std::string dir = TempPath(name);
  auto p = FindPreset(preset);
  EXPECT_TRUE(p.ok());
  Status s = WriteRandomCheckpoint(dir, p->config, o);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return dir;
}

struct Case {
  const char* preset;
  tensor::DType dtype;
  int shards;
  bool multimodal, unused_kv;
};

class RoundTripTest : public testing::TestWithParam<Case> {};

TEST_P(RoundTripTest, WrittenCheckpointLoadsAndValidates) {
  const Case& c = GetParam();
  RandomCheckpointOptions o;
  o.dtype = c.dtype;
  o.num_shards = c.shards;
  o.multimodal = c.multimodal;
  o.unused_kv_tensors = c.unused_kv;
  o.seed = 3;
  std::string dir = Write(fmt::format("rt_{}_{}_{}_{}_{}", c.preset, tensor::DTypeName(c.dtype), c.shards,
                                      c.multimodal, c.unused_kv), c.preset, o);
  auto ck = Checkpoint::Open(dir);
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  auto preset = FindPreset(c.preset);
  const Config& want = preset->config;
  const Config& got = ck->config();
  EXPECT_EQ(got.multimodal, c.multimodal);
  EXPECT_EQ(got.per_layer_config_layout, !c.multimodal);
  EXPECT_EQ(got.hidden_size, want.hidden_size);
  EXPECT_EQ(got.layer_types, want.layer_types);
  EXPECT_EQ(got.global_head_dim, want.global_head_dim);
  EXPECT_EQ(got.num_global_key_value_heads, want.attention_k_eq_v ? want.num_global_key_value_heads : 0);
  EXPECT_EQ(got.num_experts, want.num_experts);
  EXPECT_DOUBLE_EQ(got.final_logit_softcapping, want.final_logit_softcapping);
  EXPECT_EQ(ck->prefix(), c.multimodal ? "model.language_model." : "model.");
  EXPECT_EQ(ck->source().files().size(), static_cast<size_t>(c.shards));
  // Every used spec tensor is bound, with the checkpoint dtype.
  for (const WeightSpec& w : TextWeightSpec(want)) {
    const tensor::TensorView* v = ck->Find(w.name);
    if (w.used) {
      ASSERT_NE(v, nullptr) << w.name;
      EXPECT_EQ(v->dtype, c.dtype);
      EXPECT_EQ(v->NumElements(), w.num_elements());
    } else if (!w.top_level) {
      EXPECT_EQ(v != nullptr, c.unused_kv) << w.name;
    }
  }
  EXPECT_EQ(ck->stats().unused_text_bytes > 0, c.unused_kv && want.num_kv_shared_layers > 0);
}

INSTANTIATE_TEST_SUITE_P(Presets, RoundTripTest,
                         testing::Values(Case{"t1", tensor::DType::kF32, 1, false, false},
                                         Case{"t2", tensor::DType::kBF16, 1, false, false},
                                         Case{"t3", tensor::DType::kF32, 3, false, false},
                                         Case{"t3", tensor::DType::kBF16, 2, true, true},
                                         Case{"t1", tensor::DType::kF16, 4, true, true}));

TEST(RandomCheckpointTest, ValuesFollowTheRecipeAndAreShardIndependent) {
  RandomCheckpointOptions one, four;
  one.dtype = four.dtype = tensor::DType::kF32;
  one.seed = four.seed = 11;
  four.num_shards = 4;
  auto a = Checkpoint::Open(Write("vals_one", "t3", one));
  auto b = Checkpoint::Open(Write("vals_four", "t3", four));
  ASSERT_TRUE(a.ok() && b.ok());
  for (const char* name : {"layers.2.input_layernorm.weight", "layers.5.layer_scalar", "layers.1.router.scale",
                           "embed_tokens.weight", "layers.0.mlp.up_proj.weight"}) {
    const auto& va = a->Tensor(name);
    const auto& vb = b->Tensor(name);
    ASSERT_EQ(va.SizeBytes(), vb.SizeBytes());
    EXPECT_EQ(std::memcmp(va.data, vb.data, va.SizeBytes()), 0) << name;
  }
  const auto& norm = a->Tensor("layers.2.input_layernorm.weight");
  for (int64_t i = 0; i < norm.NumElements(); ++i) {
    float v = norm.As<float>()[i];
    ASSERT_TRUE(v >= 0.5f && v < 1.5f) << v;
  }
  const auto& up = a->Tensor("layers.0.mlp.up_proj.weight");  // [64, 96]: std 1/sqrt(96)
  double sq = 0;
  for (int64_t i = 0; i < up.NumElements(); ++i) sq += up.As<float>()[i] * up.As<float>()[i];
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(up.NumElements())), 1.0 / std::sqrt(96.0), 0.01);
  // A different seed gives different values.
  RandomCheckpointOptions other = one;
  other.seed = 12;
  auto c = Checkpoint::Open(Write("vals_other", "t3", other));
  ASSERT_TRUE(c.ok());
  EXPECT_NE(std::memcmp(a->Tensor("embed_tokens.weight").data, c->Tensor("embed_tokens.weight").data, 64), 0);
}

TEST(RandomCheckpointTest, RewritingReplacesAnOlderLayout) {
  RandomCheckpointOptions sharded;
  sharded.num_shards = 3;
  std::string dir = Write("rewrite", "t1", sharded);
  RandomCheckpointOptions single;
  single.dtype = tensor::DType::kF32;
  ASSERT_TRUE(WriteRandomCheckpoint(dir, FindPreset("t1")->config, single).ok());
  EXPECT_FALSE(FileExists(JoinPath(dir, "model-00001-of-00003.safetensors")));
  EXPECT_FALSE(FileExists(JoinPath(dir, "model.safetensors.index.json")));
  auto ck = Checkpoint::Open(dir);
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  EXPECT_EQ(ck->Tensor("norm.weight").dtype, tensor::DType::kF32);
  sharded.num_shards = 100000;
  EXPECT_THAT(WriteRandomCheckpoint(dir, FindPreset("t1")->config, sharded).message(), HasSubstr("--shards"));
}

TEST(PresetTest, RealShapesMatchTheSpecTables) {
  auto e2b = FindPreset("e2b");
  ASSERT_TRUE(e2b.ok());
  auto pc = CountParams(e2b->config, /*include_unused=*/true);
  // text-model.md §10: 4.647 B in the checkpoint, 4.629 B used, PLE table 2.349 B.
  EXPECT_NEAR(static_cast<double>(pc.used + pc.unused) / 1e9, 4.647, 0.001);
  EXPECT_NEAR(static_cast<double>(pc.used) / 1e9, 4.629, 0.001);
  EXPECT_NEAR(static_cast<double>(pc.per_layer_embedding) / 1e9, 2.349, 0.001);
  EXPECT_NEAR(static_cast<double>(CountParams(FindPreset("e4b")->config, true).used) / 1e9, 7.463, 0.001);
  EXPECT_NEAR(static_cast<double>(CountParams(FindPreset("31b")->config, true).used) / 1e9, 30.697, 0.001);
  EXPECT_NEAR(static_cast<double>(CountParams(FindPreset("26b")->config, true).used) / 1e9, 25.233, 0.001);
  size_t e2b_tensors = 0;
  for (const auto& w : TextWeightSpec(e2b->config)) e2b_tensors += w.top_level ? 0 : 1;
  EXPECT_EQ(e2b_tensors, 600u);  // the released E2B file has 600 text tensors
  EXPECT_FALSE(FindPreset("70b").ok());
}

}  // namespace
}  // namespace gemmad::model::gemma4
