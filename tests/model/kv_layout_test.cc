// KV layout: groups, donors and cache bytes for the tiny configs and the released variants,
// checked against text-model.md §6 and §11.
#include <gtest/gtest.h>

#include <cmath>

#include "model/gemma4/kv_plan.h"
#include "model/gemma4/presets.h"
#include "model/kv_cache.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;

Config PresetConfig(const std::string& name) {
  auto p = FindPreset(name);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p->config;
}

TEST(KvLayout, T1GroupsAndDonors) {
  const KvCacheSpec s = MakeKvCacheSpec(PresetConfig("t1"), 16, DType::kBF16);
  ASSERT_EQ(s.num_groups(), 2);
  EXPECT_EQ(s.groups[0].kind, KvGroupKind::kSliding);
  EXPECT_EQ(s.groups[0].layers, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(s.groups[0].window, 4);
  EXPECT_EQ(s.groups[1].layers, (std::vector<int64_t>{2}));
  EXPECT_EQ(s.groups[1].head_dim, 32);
  EXPECT_EQ(s.groups[1].num_kv_heads, 2);  // no k_eq_v: full layers keep num_key_value_heads
  // F = 4: layers 4, 5 (sliding) read layer 3, layer 6 (full) reads layer 2 — not llama.cpp's F-2/F-1.
  EXPECT_EQ(s.layer_kv_source, (std::vector<int64_t>{0, 1, 2, 3, 3, 3, 2}));
  EXPECT_EQ(s.layer_group, (std::vector<int>{0, 0, 1, 0, 0, 0, 1}));
}

TEST(KvLayout, T3GroupsAndDonors) {
  const KvCacheSpec s = MakeKvCacheSpec(PresetConfig("t3"), 16, DType::kBF16);
  ASSERT_EQ(s.num_groups(), 2);
  EXPECT_EQ(s.groups[0].layers, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(s.groups[1].layers, (std::vector<int64_t>{3}));
  EXPECT_EQ(s.groups[1].num_kv_heads, 1);  // k_eq_v: num_global_key_value_heads
  EXPECT_EQ(s.groups[1].head_dim, 64);
  EXPECT_EQ(s.layer_kv_source, (std::vector<int64_t>{0, 1, 2, 3, 2, 2, 2, 3}));
}

// §11: the allocated KV bytes of one sequence at context T, blocks of one token.
TEST(KvLayout, AllocatedBytesFollowTheSpecFormulaForT1AndT3) {
  struct Want {
    std::string preset;
    int64_t T;
    int64_t bytes;
  };
  // T1: sliding owners 0,1,3 (nkv 2, d 16, W 4), full owner 2 (nkv 2, d 32); bf16.
  //   3 · min(T, 4) · 2·2·16·2 + 1 · T · 2·2·32·2 = 384·min(T,4) + 256·T
  // T3: sliding owners 0,1,2 (nkv 2, d 16, W 6), full owner 3 (nkv 1, d 64).
  //   3 · min(T, 6) · 128 + 1 · T · 2·1·64·2 = 384·min(T,6) + 256·T
  const std::vector<Want> cases = {{"t1", 3, 384 * 3 + 256 * 3},
                                   {"t1", 100, 384 * 4 + 256 * 100},
                                   {"t3", 5, 384 * 5 + 256 * 5},
                                   {"t3", 100, 384 * 6 + 256 * 100}};
  for (const auto& w : cases) {
    for (DType dt : {DType::kBF16, DType::kF32}) {
      const KvCacheSpec s = MakeKvCacheSpec(PresetConfig(w.preset), 1, dt);
      std::vector<int64_t> blocks;
      for (const auto& g : s.groups) blocks.push_back(g.NumBlocksNeeded(w.T));
      auto cache = KvCache::Create(s, blocks);
      ASSERT_TRUE(cache.ok());
      const int64_t want = w.bytes * (dt == DType::kF32 ? 2 : 1);
      EXPECT_EQ((*cache)->allocated_bytes(), want) << w.preset << " T=" << w.T;
      EXPECT_EQ(s.BytesForTokens(w.T), want);
    }
  }
}

TEST(KvLayout, BlockArithmetic) {
  KvGroupSpec g;
  g.kind = KvGroupKind::kSliding;
  g.window = 4;
  g.block_size = 2;
  EXPECT_EQ(g.EndBlock(0), 0);
  EXPECT_EQ(g.EndBlock(5), 3);
  EXPECT_EQ(g.FirstLiveBlock(3), 0);   // the next query (3) reads keys 0..3
  EXPECT_EQ(g.FirstLiveBlock(6), 1);   // query 6 reads 3..6: block 0 is dead
  EXPECT_EQ(g.NumBlocksNeeded(1), 1);
  EXPECT_EQ(g.NumBlocksNeeded(100), 3);     // 4 keys starting at an odd index span 3 blocks
  EXPECT_EQ(g.NumBlocksNeeded(100, 8), 6);  // chunks of 8: keys i-3 .. i+7 span 11 keys
  g.kind = KvGroupKind::kFull;
  EXPECT_EQ(g.FirstLiveBlock(60), 0);
  EXPECT_EQ(g.NumBlocksNeeded(100), 50);
}

// §11 table: bytes per token per KV-owning layer and whole-sequence totals (bf16, windowed).
TEST(KvLayout, ReleasedVariantsMatchTheSpecTable) {
  struct Row {
    std::string preset;
    int64_t owners_s, owners_f, sliding_b, full_b;
    double mib_at_1k, mib_at_8k, mib_at_32k;
  };
  const std::vector<Row> rows = {{"e2b", 12, 3, 1024, 2048, 12.0, 54, 198},
                                 {"e4b", 20, 4, 2048, 4096, 36, 148, 532},
                                 {"31b", 50, 10, 16384, 8192, 880, 1.41 * 1024, 3.28 * 1024},
                                 {"26b", 25, 5, 8192, 4096, 220, 360, 840}};
  for (const auto& r : rows) {
    const KvCacheSpec s = MakeKvCacheSpec(PresetConfig(r.preset), 16, DType::kBF16);
    ASSERT_EQ(s.num_groups(), 2) << r.preset;
    EXPECT_EQ(static_cast<int64_t>(s.groups[0].layers.size()), r.owners_s) << r.preset;
    EXPECT_EQ(static_cast<int64_t>(s.groups[1].layers.size()), r.owners_f) << r.preset;
    EXPECT_EQ(s.groups[0].bytes_per_token_per_layer(), r.sliding_b) << r.preset;
    EXPECT_EQ(s.groups[1].bytes_per_token_per_layer(), r.full_b) << r.preset;
    const double mib = 1024.0 * 1024.0;
    EXPECT_NEAR(s.BytesForTokens(1024) / mib, r.mib_at_1k, r.mib_at_1k * 0.01) << r.preset;
    EXPECT_NEAR(s.BytesForTokens(8192) / mib, r.mib_at_8k, r.mib_at_8k * 0.01) << r.preset;
    EXPECT_NEAR(s.BytesForTokens(32768) / mib, r.mib_at_32k, r.mib_at_32k * 0.01) << r.preset;
  }
  // E2B donors (§6): sliding receivers read layer 13, full receivers layer 14.
  const KvCacheSpec e2b = MakeKvCacheSpec(PresetConfig("e2b"), 16, DType::kBF16);
  for (int64_t l = 15; l < 35; ++l) EXPECT_EQ(e2b.layer_kv_source[l], (l + 1) % 5 == 0 ? 14 : 13) << l;
}

}  // namespace
}  // namespace gemmad::model::gemma4
