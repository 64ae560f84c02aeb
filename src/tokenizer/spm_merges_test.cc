// SpmMerges: the order of transformers' generate_merges(vocab, vocab_scores) (the expected lists
// below are what that function returns for these pieces and scores).
#include "tokenizer/spm_merges.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmad::tokenizer {
namespace {

using Merges = std::vector<std::pair<int32_t, int32_t>>;

TEST(SpmMerges, ScoreThenLengthsThenGenerationOrder) {
  const std::vector<std::string_view> pieces = {"a", "b", "c", "ab", "bc", "abc", "ca", "é", "éa"};
  const std::vector<float> scores = {-3, -4, -5, -1, -1, -1, 0, -6, -2};
  // "ca" (score 0) first; among score -1: (ab, c) has the longer left side, then (a, bc) the longer
  // right side, then (a, b) before (b, c) by piece id; "éa" splits only between code points.
  EXPECT_EQ(SpmMerges(pieces, scores), (Merges{{2, 0}, {3, 2}, {0, 4}, {0, 1}, {1, 2}, {7, 0}}));
}

TEST(SpmMerges, NegativeZeroTiesWithZeroAndSplitsNeedBothSides) {
  // "xy" has score -0 and "yx" 0: equal keys keep piece order. "xyz" splits only as xy + z ("yz" is
  // not a piece).
  const std::vector<std::string_view> pieces = {"x", "y", "z", "yx", "xy", "xyz"};
  const std::vector<float> scores = {-1, -2, -3, 0.0f, -0.0f, -4};
  EXPECT_EQ(SpmMerges(pieces, scores), (Merges{{1, 0}, {0, 1}, {4, 2}}));
}

TEST(SpmMerges, PiecesOver256BytesAreNotSplit) {
  const std::string a100(100, 'a'), b100(100, 'b'), a150(150, 'a'), b150(150, 'b');
  const std::string ab200 = a100 + b100, ab300 = a150 + b150;
  const std::vector<std::string_view> pieces = {a100, b100, ab200, a150, b150, ab300};
  EXPECT_EQ(SpmMerges(pieces, std::vector<float>{-1, -2, -3, -4, -5, -6}), (Merges{{0, 1}}));
}

TEST(SpmMerges, EmptyInput) { EXPECT_TRUE(SpmMerges({}, {}).empty()); }

}  // namespace
}  // namespace gemmad::tokenizer
