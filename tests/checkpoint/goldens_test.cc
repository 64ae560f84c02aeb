// The committed Gemma 4 goldens: every checkpoint opens and validates, the transformers-written
// configs (per_layer_config layout and the released multimodal layout) parse to the C++ presets,
// golden arrays are readable and consistent, and bf16 checkpoints rebuilt from fp32 are
// byte-identical to the transformers-saved ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>
#include <unistd.h>

#include <cmath>

#include "base/test_temp_path.h"
#include "base/files.h"
#include "gemma4_golden.h"
#include "io/sha256.h"
#include "model/gemma4/checkpoint.h"
#include "model/gemma4/presets.h"

namespace gemmad {
namespace {

std::string TempPath(const std::string& name) { return TestTempPath(name); }

using model::gemma4::Checkpoint;
using model::gemma4::Config;

void ExpectSameConfig(const Config& got, const Config& want) {
  EXPECT_EQ(got.vocab_size, want.vocab_size);
  EXPECT_EQ(got.hidden_size, want.hidden_size);
  EXPECT_EQ(got.intermediate_size, want.intermediate_size);
  EXPECT_EQ(got.num_hidden_layers, want.num_hidden_layers);
  EXPECT_EQ(got.layer_types, want.layer_types);
  EXPECT_EQ(got.num_attention_heads, want.num_attention_heads);
  EXPECT_EQ(got.num_key_value_heads, want.num_key_value_heads);
  EXPECT_EQ(got.num_global_key_value_heads, want.attention_k_eq_v ? want.num_global_key_value_heads : 0);
  EXPECT_EQ(got.head_dim, want.head_dim);
  EXPECT_EQ(got.global_head_dim, want.global_head_dim);
  EXPECT_EQ(got.attention_k_eq_v, want.attention_k_eq_v);
  EXPECT_EQ(got.sliding_window, want.sliding_window);
  EXPECT_EQ(got.num_kv_shared_layers, want.num_kv_shared_layers);
  EXPECT_EQ(got.use_double_wide_mlp, want.use_double_wide_mlp);
  EXPECT_EQ(got.hidden_size_per_layer_input, want.hidden_size_per_layer_input);
  EXPECT_EQ(got.enable_moe_block, want.enable_moe_block);
  EXPECT_EQ(got.num_experts, want.num_experts);
  EXPECT_EQ(got.top_k_experts, want.top_k_experts);
  EXPECT_EQ(got.moe_intermediate_size, want.moe_intermediate_size);
  EXPECT_DOUBLE_EQ(got.final_logit_softcapping, want.final_logit_softcapping);
  EXPECT_DOUBLE_EQ(got.rope_full.partial_rotary_factor, want.rope_full.partial_rotary_factor);
  EXPECT_DOUBLE_EQ(got.rope_full.rope_theta, want.rope_full.rope_theta);
  EXPECT_DOUBLE_EQ(got.rope_sliding.rope_theta, want.rope_sliding.rope_theta);
  EXPECT_EQ(got.max_position_embeddings, want.max_position_embeddings);
}

struct Dir {
  const char* model;
  const char* sub;
  bool multimodal;
};

TEST(GoldenCheckpointsTest, OpenValidateAndMatchPresets) {
  for (const Dir& d : {Dir{"t1", "", false}, Dir{"t2", "", false}, Dir{"t3", "", false}, Dir{"t1", "bf16", false},
                       Dir{"t1", "multimodal", true}}) {
    std::string dir = JoinPath(JoinPath(golden::Gemma4GoldenRoot(), d.model), d.sub);
    SCOPED_TRACE(dir);
    auto ck = Checkpoint::Open(dir);
    ASSERT_TRUE(ck.ok()) << ck.status().ToString();
    EXPECT_EQ(ck->config().multimodal, d.multimodal);
    EXPECT_EQ(ck->config().per_layer_config_layout, !d.multimodal);  // multimodal: released layout
    EXPECT_EQ(ck->prefix(), d.multimodal ? "model.language_model." : "model.");
    ExpectSameConfig(ck->config(), model::gemma4::FindPreset(d.model)->config);
    EXPECT_EQ(ck->stats().num_skipped_tensors, 0);
    EXPECT_EQ(ck->generation_config().eos_token_ids, (std::vector<int64_t>{1}));
  }
}

// The Gemma 3 golden's transformers-written config.json (and its bf16 copy) parse to preset g1.
TEST(GoldenCheckpointsTest, Gemma3OpensAndMatchesPresetG1) {
  const Config want = model::gemma4::FindPreset("g1")->config;
  for (const char* sub : {"", "bf16"}) {
    std::string dir = JoinPath(golden::GoldenModelDir("g1"), sub);
    SCOPED_TRACE(dir);
    auto ck = Checkpoint::Open(dir);
    ASSERT_TRUE(ck.ok()) << ck.status().ToString();
    const Config& c = ck->config();
    ExpectSameConfig(c, want);
    EXPECT_EQ(c.family, model::gemma4::Family::kGemma3);
    EXPECT_EQ(c.rope_full.rope_type, want.rope_full.rope_type);
    EXPECT_DOUBLE_EQ(c.rope_full.factor, want.rope_full.factor);
    EXPECT_DOUBLE_EQ(c.query_pre_attn_scalar, want.query_pre_attn_scalar);
    EXPECT_DOUBLE_EQ(c.attention_scale, want.attention_scale);
    EXPECT_EQ(c.v_norm, want.v_norm);
    EXPECT_EQ(c.norm_weight_plus_one, want.norm_weight_plus_one);
    EXPECT_EQ(c.has_layer_scalar, want.has_layer_scalar);
    EXPECT_EQ(ck->prefix(), "model.");
  }
}

TEST(GoldenArraysTest, EveryGoldenIsConsistent) {
  for (const char* model : {"t1", "t2", "t3"}) {
    for (const char* dtype : {"f32", "bf16"}) {
      SCOPED_TRACE(std::string(model) + "/" + dtype);
      auto g = golden::Gemma4Golden::Load(model, dtype);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      double cap = model::gemma4::FindPreset(model)->config.final_logit_softcapping;
      ASSERT_EQ(g->prompts().size(), 2u);
      for (const auto& p : g->prompts()) {
        int64_t t = static_cast<int64_t>(p.token_ids.size());
        EXPECT_EQ(p.greedy_ids.size(), 32u);
        // Not degenerate: random goldens whose greedy run repeats one token would let a wrong
        // attention or KV cache produce the expected ids (make_gemma4_goldens.py check_greedy).
        EXPECT_GE(golden::DistinctIds(p.greedy_ids), golden::kMinDistinctGreedyIds) << p.name;
        EXPECT_EQ(golden::ShortestTailCycle(p.greedy_ids), 0) << p.name;
        EXPECT_EQ(p.greedy_margins.size(), p.greedy_ids.size()) << p.name;
        for (const char* kind : {"prefill_logits", "decode_logits"}) {
          auto a = g->Array(p.name + "." + kind);
          ASSERT_TRUE(a.ok()) << a.status().ToString();
          EXPECT_EQ(a->shape, (std::vector<int64_t>{t, g->vocab_size()}));
          float max_abs = 0;
          for (float v : a->values) max_abs = std::max(max_abs, std::fabs(v));
          EXPECT_LE(max_abs, cap + 1e-3);  // soft-capped
          EXPECT_GT(max_abs, 0.1);
        }
        auto h = g->Array(p.name + ".hidden_states");
        EXPECT_EQ(h.ok(), p.has_hidden_states);
        if (h.ok()) {
          EXPECT_EQ(h->shape, (std::vector<int64_t>{g->num_hidden_layers() + 1, t, g->hidden_size()}));
        }
      }
      EXPECT_FALSE(g->Array("p24.nothing").ok());
    }
  }
}

TEST(GoldenArraysTest, Bf16CheckpointsRebuiltFromFp32AreByteIdentical) {
  // T1's bf16 checkpoint is committed: rebuilding it must give the same bytes.
  std::string t1 = JoinPath(golden::Gemma4GoldenRoot(), "t1");
  std::string rebuilt = TempPath("t1_bf16_rebuilt");
  ASSERT_TRUE(golden::ConvertCheckpointToBf16(t1, rebuilt).ok());
  for (const char* f : {"model.safetensors", "config.json", "generation_config.json"}) {
    EXPECT_EQ(*io::Sha256FileHex(JoinPath(rebuilt, f)), *io::Sha256FileHex(JoinPath(JoinPath(t1, "bf16"), f))) << f;
  }
  // T2/T3: rebuilt under the build directory and checked against the recorded transformers hashes.
  for (const char* model : {"t2", "t3"}) {
    auto g = golden::Gemma4Golden::Load(model, "bf16");
    ASSERT_TRUE(g.ok());
    auto dir = g->CheckpointDir();
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    auto ck = Checkpoint::Open(*dir);
    ASSERT_TRUE(ck.ok()) << ck.status().ToString();
    EXPECT_EQ(ck->Tensor("embed_tokens.weight").dtype, tensor::DType::kBF16);
  }
}

}  // namespace
}  // namespace gemmad
