#include "spec/drafter.h"

#include <gtest/gtest.h>

#include "base/rng.h"

namespace gemmad::spec {
namespace {

using V = std::vector<int32_t>;

// The definition, spelled out: for n from max_n down to min_n, the earliest earlier occurrence of
// the last n tokens; the drafts follow it.
V Reference(const V& t, int32_t min_n, int32_t max_n, int32_t k) {
  const int64_t size = static_cast<int64_t>(t.size());
  for (int64_t n = std::min<int64_t>(max_n, size - 1); n >= min_n; --n) {
    for (int64_t start = 0; start + n < size; ++start) {
      if (std::equal(t.begin() + start, t.begin() + start + n, t.end() - n)) {
        const int64_t from = start + n;
        return V(t.begin() + from, t.begin() + std::min(size, from + k));
      }
    }
  }
  return {};
}

TEST(NgramDrafts, LongestThenEarliestMatch) {
  //            0  1  2  3  4  5  6  7  8  9
  V t = {5, 1, 2, 3, 9, 1, 2, 3, 7, 2, 3};
  EXPECT_EQ(FindNgramDrafts(t, 1, 3, 2), (V{9, 1}));  // "2 3" first at 2..3 (the 3-gram "7 2 3" never recurs)
  EXPECT_EQ(FindNgramDrafts(t, 3, 3, 2), V{});        // no 3-gram match
  EXPECT_EQ(FindNgramDrafts(t, 1, 1, 4), (V{9, 1, 2, 3}));  // "3" first at 3
  EXPECT_EQ(FindNgramDrafts(V{4, 4, 4, 4}, 1, 2, 3), (V{4, 4}));  // overlapping match, cut at the end
  EXPECT_EQ(FindNgramDrafts(V{1, 2}, 1, 2, 3), V{});
  EXPECT_EQ(FindNgramDrafts(t, 1, 3, 0), V{});
}

TEST(NgramDrafts, EqualsTheDefinitionOnRandomSequences) {
  Rng rng(3);
  for (int trial = 0; trial < 3000; ++trial) {
    V t(1 + rng.Below(40));
    const uint64_t alphabet = 1 + rng.Below(6);
    for (auto& x : t) x = static_cast<int32_t>(rng.Below(alphabet));
    const int32_t min_n = 1 + static_cast<int32_t>(rng.Below(3));
    const int32_t max_n = min_n + static_cast<int32_t>(rng.Below(4));
    const int32_t k = 1 + static_cast<int32_t>(rng.Below(6));
    ASSERT_EQ(FindNgramDrafts(t, min_n, max_n, k), Reference(t, min_n, max_n, k)) << "trial " << trial;
  }
}

TEST(ReplayBook, ContinuesRecordedSequences) {
  ReplayBook book;
  book.Record(V{1, 2, 3, 4, 5, 6});
  book.Record(V{1, 2, 9, 9});  // the same first tokens, a different sequence
  EXPECT_EQ(book.Continue(V{1, 2, 3}, 2), (V{4, 5}));
  EXPECT_EQ(book.Continue(V{1, 2, 9}, 5), (V{9}));
  EXPECT_EQ(book.Continue(V{1, 2, 3, 4, 5, 6}, 2), V{});  // nothing recorded after it
  EXPECT_EQ(book.Continue(V{7}, 2), V{});
  ReplayDrafter d(std::make_shared<ReplayBook>());
  EXPECT_EQ(d.Propose(V{1}, 3), V{});
}

}  // namespace
}  // namespace gemmad::spec
