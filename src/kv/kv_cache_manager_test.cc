#include "kv/kv_cache_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "base/rng.h"

namespace gemmad::kv {
namespace {

constexpr int32_t kBs = 4;

KvCacheConfig Config(int64_t full_blocks, int64_t sliding_blocks, int32_t window, bool caching = true) {
  KvCacheConfig c;
  c.block_size = kBs;
  c.enable_prefix_caching = caching;
  c.groups.push_back({"full", KvGroupKind::kFull, 0, full_blocks, 64});
  if (sliding_blocks > 0) c.groups.push_back({"sliding", KvGroupKind::kSliding, window, sliding_blocks, 32});
  return c;
}

std::vector<BlockHash> Hashes(const std::vector<int32_t>& tokens) {
  std::vector<BlockHash> out;
  for (size_t i = 0; (i + 1) * kBs <= tokens.size(); ++i) {
    out.push_back(HashBlock(out.empty() ? nullptr : &out.back(),
                            std::span<const int32_t>(tokens.data() + i * kBs, kBs), ""));
  }
  return out;
}

std::vector<int32_t> Tokens(int n, int salt) {
  std::vector<int32_t> t;
  for (int i = 0; i < n; ++i) t.push_back((i * 7 + salt) % 50);
  return t;
}

TEST(MaxBlocksPerSequence, FullAndSlidingBounds) {
  KvGroupSpec full{"f", KvGroupKind::kFull, 0, 100, 1};
  KvGroupSpec sliding{"s", KvGroupKind::kSliding, 8, 100, 1};
  EXPECT_EQ(MaxBlocksPerSequence(full, 4, 17, 1), 5);
  // Window 8, chunk 1: positions p-7..p, 8 positions -> at most 3 blocks of 4.
  EXPECT_EQ(MaxBlocksPerSequence(sliding, 4, 100, 1), 3);
  EXPECT_EQ(MaxBlocksPerSequence(sliding, 4, 5, 1), 2);  // never more than the full count
  EXPECT_EQ(MaxBlocksPerSequence(sliding, 4, 100, 16), 7);
}

TEST(KvCacheManager, AllocatesPerGroupAndFreesEverything) {
  KvCacheManager m(Config(11, 11, 8));
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 10));
  EXPECT_EQ(m.BlockTable(1, 0).size(), 3u);
  EXPECT_EQ(m.BlockTable(1, 1).size(), 3u);
  EXPECT_NEAR(m.Usage(), 6.0 / 20.0, 1e-12);
  m.CheckInvariants();
  m.Free(1);
  EXPECT_EQ(m.Usage(), 0.0);
  m.CheckInvariants();
}

TEST(KvCacheManager, AllocationIsAllOrNothingAcrossGroups) {
  KvCacheManager m(Config(11, 3, 8));  // sliding group has only 2 usable blocks
  EXPECT_FALSE(m.Allocate(1, nullptr, 0, 12));
  EXPECT_FALSE(m.has_seq(1));
  EXPECT_EQ(m.Usage(), 0.0);
  m.CheckInvariants();
}

TEST(KvCacheManager, SlidingGroupDropsBlocksOutsideTheWindow) {
  KvCacheManager m(Config(64, 64, 8));
  int64_t computed = 0;
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 12));
  computed = 12;
  for (; computed < 100; ++computed) {
    ASSERT_TRUE(m.Allocate(1, nullptr, computed, 1));
    // Decode: positions computed-7 .. computed are needed: at most 3 blocks.
    EXPECT_LE(m.NumHeldBlocks(1, 1), 3) << computed;
    EXPECT_EQ(m.NumHeldBlocks(1, 0), CeilDiv(computed + 1, kBs));
    const auto& table = m.BlockTable(1, 1);
    const int64_t first_needed = (computed - 7) / kBs;
    for (int64_t j = first_needed; j < static_cast<int64_t>(table.size()); ++j) EXPECT_NE(table[static_cast<size_t>(j)], kNullBlock);
    for (int64_t j = 0; j < first_needed; ++j) EXPECT_EQ(table[static_cast<size_t>(j)], kNullBlock);
  }
  m.CheckInvariants();
}

TEST(KvCacheManager, PrefixHitInFullGroup) {
  KvCacheManager m(Config(32, 0, 0));
  auto tokens = Tokens(18, 1);
  auto hashes = Hashes(tokens);
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 18));
  m.CacheComputedBlocks(1, hashes, 18);
  // Same prompt: 4 full blocks cached, but at most num_tokens - 1 = 17 -> 16 tokens.
  CacheHit hit = m.FindCachedPrefix(hashes, 17);
  EXPECT_EQ(hit.num_tokens, 16);
  EXPECT_EQ(hit.tables[0], std::vector<BlockId>(m.BlockTable(1, 0).begin(), m.BlockTable(1, 0).begin() + 4));
  ASSERT_TRUE(m.Allocate(2, &hit, 16, 2));
  EXPECT_EQ(m.pool(0).ref_count(hit.tables[0][0]), 2);
  // A different second block limits the hit to one block.
  auto other = tokens;
  other[5] = 49;
  EXPECT_EQ(m.FindCachedPrefix(Hashes(other), 100).num_tokens, 4);
  m.Free(1);
  m.Free(2);
  m.CheckInvariants();
  // Freed cached blocks remain findable.
  EXPECT_EQ(m.FindCachedPrefix(hashes, 17).num_tokens, 16);
}

TEST(KvCacheManager, SlidingHitNeedsOnlyTheWindowBeforeTheHit) {
  // Window 9 -> the W-1 = 8 positions before the hit = 2 blocks.
  KvCacheManager m(Config(64, 64, 9));
  auto tokens = Tokens(40, 3);
  auto hashes = Hashes(tokens);
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 40));
  m.CacheComputedBlocks(1, hashes, 40);
  CacheHit hit = m.FindCachedPrefix(hashes, 39);
  EXPECT_EQ(hit.num_tokens, 36);
  const auto& st = hit.tables[1];
  ASSERT_EQ(st.size(), 9u);
  for (size_t j = 0; j < 7; ++j) EXPECT_EQ(st[j], kNullBlock);
  EXPECT_NE(st[7], kNullBlock);
  EXPECT_NE(st[8], kNullBlock);
  m.Free(1);
  m.CheckInvariants();
}

TEST(KvCacheManager, SlidingGroupLimitsTheHitWhenWindowBlocksWereDropped) {
  // Sequence 1 decodes far: its sliding group drops early blocks, which become evictable.
  KvCacheManager m(Config(64, 8, 8));  // 7 usable sliding blocks
  auto tokens = Tokens(60, 5);
  auto hashes = Hashes(tokens);
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 8));
  m.CacheComputedBlocks(1, hashes, 8);
  for (int64_t c = 8; c < 60; ++c) {
    ASSERT_TRUE(m.Allocate(1, nullptr, c, 1)) << c;
    m.CacheComputedBlocks(1, hashes, c + 1);
  }
  m.CheckInvariants();
  // The full group has all 15 blocks; the sliding group only recent ones (older were reused).
  CacheHit hit = m.FindCachedPrefix(hashes, 59);
  EXPECT_GT(hit.num_tokens, 0);
  EXPECT_EQ(hit.num_tokens % kBs, 0);
  // Whatever the hit, the window blocks before it must be cached in the sliding group.
  const int64_t n = hit.num_tokens / kBs;
  for (int64_t j = std::max<int64_t>(0, n - 2); j < n; ++j) {
    EXPECT_NE(hit.tables[1][static_cast<size_t>(j)], kNullBlock);
    EXPECT_EQ(m.pool(1).Lookup(hashes[static_cast<size_t>(j)]), hit.tables[1][static_cast<size_t>(j)]);
  }
  // Now another sequence takes every sliding block: the full group still has the whole
  // prefix, but without the window blocks nothing can be reused.
  m.Free(1);
  auto other = Tokens(28, 9);
  ASSERT_TRUE(m.Allocate(2, nullptr, 0, 28));
  m.CacheComputedBlocks(2, Hashes(other), 28);
  EXPECT_EQ(m.pool(1).num_free(), 0);
  for (size_t j = 0; j < 14; ++j) EXPECT_TRUE(m.pool(0).Lookup(hashes[j]).has_value()) << j;
  EXPECT_EQ(m.FindCachedPrefix(hashes, 59).num_tokens, 0);
  m.CheckInvariants();
}

TEST(KvCacheManager, CachingDisabledFindsNothing) {
  KvCacheManager m(Config(32, 0, 0, /*caching=*/false));
  auto tokens = Tokens(16, 1);
  auto hashes = Hashes(tokens);
  ASSERT_TRUE(m.Allocate(1, nullptr, 0, 16));
  m.CacheComputedBlocks(1, hashes, 16);
  EXPECT_EQ(m.FindCachedPrefix(hashes, 15).num_tokens, 0);
  EXPECT_EQ(m.pool(0).num_cached(), 0);
}

TEST(KvCacheManager, MaxSequenceTokens) {
  KvCacheManager m(Config(11, 4, 8));  // 10 full blocks = 40 tokens; sliding 3 usable
  EXPECT_EQ(m.MaxSequenceTokens(1, 1000), 40);
  // Chunks of 8 need ceil((7 + 8 - 1) / 4) + 1 = 5 sliding blocks > 3: only short sequences.
  // 13 tokens would need min(4, 5) = 4 > 3 sliding blocks.
  EXPECT_EQ(m.MaxSequenceTokens(8, 1000), 12);
  EXPECT_EQ(m.MaxSequenceTokens(1, 30), 30);
}

// Random operations on several sequences, invariants after every operation.
TEST(KvCacheManager, RandomOperationsKeepInvariants) {
  Rng rng(1234);
  KvCacheManager m(Config(40, 20, 10));
  struct S {
    std::vector<int32_t> tokens;
    int64_t computed = 0;
    bool live = false;
  };
  std::map<SeqId, S> seqs;
  for (int step = 0; step < 3000; ++step) {
    SeqId id = rng.Below(8);
    S& s = seqs[id];
    if (!s.live) {
      s.tokens = Tokens(static_cast<int>(1 + rng.Below(30)), static_cast<int>(rng.Below(3)));
      auto hashes = Hashes(s.tokens);
      CacheHit hit = m.FindCachedPrefix(hashes, static_cast<int64_t>(s.tokens.size()) - 1);
      int64_t n = std::min<int64_t>(static_cast<int64_t>(s.tokens.size()) - hit.num_tokens, 1 + static_cast<int64_t>(rng.Below(12)));
      if (m.Allocate(id, &hit, hit.num_tokens, n)) {
        s.computed = hit.num_tokens + n;
        s.live = true;
        m.CacheComputedBlocks(id, hashes, s.computed);
      }
    } else if (rng.Below(10) == 0) {
      m.Free(id);
      s.live = false;
    } else {
      if (s.computed == static_cast<int64_t>(s.tokens.size())) s.tokens.push_back(static_cast<int32_t>(rng.Below(50)));
      int64_t n = std::min<int64_t>(static_cast<int64_t>(s.tokens.size()) - s.computed, 1 + static_cast<int64_t>(rng.Below(6)));
      if (m.Allocate(id, nullptr, s.computed, n)) {
        s.computed += n;
        m.CacheComputedBlocks(id, Hashes(s.tokens), s.computed);
        EXPECT_LE(m.NumHeldBlocks(id, 1), MaxBlocksPerSequence(m.config().groups[1], kBs, s.computed, n));
      } else {
        m.Free(id);
        s.live = false;
      }
    }
    m.CheckInvariants();
  }
}

}  // namespace
}  // namespace gemmad::kv
