#include "kv/block_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace gemmad::kv {
namespace {

BlockHash H(uint64_t x) { return BlockHash{x, ~x}; }

TEST(BlockPool, AllocatesEveryUsableBlockOnceAndNeverTheNullBlock) {
  BlockPool pool(6);
  EXPECT_EQ(pool.num_usable(), 5);
  std::vector<bool> seen(6, false);
  for (int i = 0; i < 5; ++i) {
    BlockId b = pool.AllocateOne();
    EXPECT_NE(b, kNullBlock);
    EXPECT_FALSE(seen[static_cast<size_t>(b)]);
    seen[static_cast<size_t>(b)] = true;
    EXPECT_EQ(pool.ref_count(b), 1);
  }
  EXPECT_EQ(pool.num_free(), 0);
  pool.CheckInvariants();
}

TEST(BlockPool, FreedBlocksAreReusedLeastRecentlyFreedFirst) {
  BlockPool pool(4);
  BlockId a = pool.AllocateOne(), b = pool.AllocateOne(), c = pool.AllocateOne();
  pool.Release(b);
  pool.Release(a);
  pool.Release(c);
  EXPECT_EQ(pool.AllocateOne(), b);
  EXPECT_EQ(pool.AllocateOne(), a);
  EXPECT_EQ(pool.AllocateOne(), c);
  pool.CheckInvariants();
}

TEST(BlockPool, CachedFreeBlockStaysFindableUntilReusedThenIsEvicted) {
  BlockPool pool(3);
  BlockId a = pool.AllocateOne();
  pool.SetHash(a, H(7));
  pool.Release(a);
  EXPECT_TRUE(pool.is_free(a));
  ASSERT_TRUE(pool.Lookup(H(7)).has_value());
  EXPECT_EQ(*pool.Lookup(H(7)), a);
  // A hit takes the block out of the free queue.
  pool.AddRef(a);
  EXPECT_FALSE(pool.is_free(a));
  EXPECT_EQ(pool.num_free(), 1);
  pool.Release(a);
  // Reuse evicts: first the never-used block 2... then a.
  BlockId x = pool.AllocateOne();
  BlockId y = pool.AllocateOne();
  EXPECT_NE(x, y);
  EXPECT_FALSE(pool.Lookup(H(7)).has_value());
  EXPECT_FALSE(pool.has_hash(a));
  pool.CheckInvariants();
}

TEST(BlockPool, DuplicateHashKeepsTheFirstBlock) {
  BlockPool pool(4);
  BlockId a = pool.AllocateOne(), b = pool.AllocateOne();
  pool.SetHash(a, H(1));
  pool.SetHash(b, H(1));
  EXPECT_EQ(*pool.Lookup(H(1)), a);
  EXPECT_FALSE(pool.has_hash(b));
  pool.Release(b);
  pool.Release(a);
  pool.CheckInvariants();
  EXPECT_EQ(pool.num_cached(), 1);
}

TEST(BlockPool, RefcountsAddUp) {
  BlockPool pool(3);
  BlockId a = pool.AllocateOne();
  pool.AddRef(a);
  pool.AddRef(a);
  EXPECT_EQ(pool.ref_count(a), 3);
  pool.Release(a);
  pool.Release(a);
  EXPECT_FALSE(pool.is_free(a));
  pool.Release(a);
  EXPECT_TRUE(pool.is_free(a));
  pool.CheckInvariants();
}

TEST(BlockPoolDeathTest, ReleasingAnUnreferencedBlockAborts) {
  BlockPool pool(3);
  EXPECT_DEATH(pool.Release(1), "no reference");
}

}  // namespace
}  // namespace gemmad::kv
