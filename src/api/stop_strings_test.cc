// StopStringFilter: vLLM's stop-string semantics and chunking invariance.
#include "api/stop_strings.h"

#include <gtest/gtest.h>

#include <random>

namespace gemmad::api {
namespace {

struct Outcome {
  std::string streamed;
  std::string matched;
};

Outcome RunFilter(const std::vector<std::string>& pieces, std::vector<std::string> stops, bool include) {
  StopStringFilter f(std::move(stops), include);
  Outcome o;
  for (const std::string& p : pieces) {
    f.Append(p);
    o.streamed += f.TakeReady(false);
    if (f.stopped()) break;
  }
  o.streamed += f.TakeReady(true);
  o.matched = f.matched();
  EXPECT_EQ(o.streamed, f.text());
  return o;
}

TEST(StopStringFilterTest, TruncatesBeforeTheStopString) {
  Outcome o = RunFilter({"Hello", " wor", "ld. Bye"}, {"world"}, false);
  EXPECT_EQ(o.streamed, "Hello ");
  EXPECT_EQ(o.matched, "world");
}

TEST(StopStringFilterTest, IncludeStopStringKeepsIt) {
  Outcome o = RunFilter({"Hello", " wor", "ld. Bye"}, {"world"}, true);
  EXPECT_EQ(o.streamed, "Hello world");
  EXPECT_EQ(o.matched, "world");
}

TEST(StopStringFilterTest, HoldsBackAPossibleStopPrefix) {
  StopStringFilter f({"STOP"}, false);
  f.Append("abcST");
  EXPECT_EQ(f.TakeReady(false), "ab");  // 3 chars held back
  f.Append("x");
  EXPECT_EQ(f.TakeReady(false), "c");
  EXPECT_EQ(f.TakeReady(true), "STx");
  EXPECT_FALSE(f.stopped());
}

TEST(StopStringFilterTest, EarliestEndingMatchWins) {
  // Fed one character at a time, "one" completes first; a whole chunk must agree.
  Outcome o = RunFilter({"one two three"}, {"three", "one"}, false);
  EXPECT_EQ(o.matched, "one");
  EXPECT_EQ(o.streamed, "");
  Outcome tie = RunFilter({"xab"}, {"ab", "b"}, false);  // both end at the same place: list order
  EXPECT_EQ(tie.matched, "ab");
}

TEST(StopStringFilterTest, UncheckedTextIsNotSearchedLater) {
  // Text appended while min_tokens was not reached is never searched (vLLM's stop_check_offset).
  StopStringFilter f({"ab"}, false);
  f.Append("xab", /*check=*/false);
  EXPECT_FALSE(f.Append("c"));
  EXPECT_EQ(f.TakeReady(true), "xabc");
}

TEST(StopStringFilterTest, HoldBackCountsCharactersNotBytes) {
  StopStringFilter f({"éé"}, false);  // 2 characters, 4 bytes: hold back 1 character
  f.Append("aéb");
  EXPECT_EQ(f.TakeReady(false), "aé");
  EXPECT_EQ(f.TakeReady(true), "b");
}

TEST(StopStringFilterTest, ChunkingInvariance) {
  const std::string text = "The quick brown fox jumps over the lazy dog. Ünïcödé → end of text STOP more";
  const std::vector<std::vector<std::string>> stop_sets = {{"STOP"}, {"lazy", "fox"}, {"→"}, {"zzz"}, {"dog. Ü"}};
  std::mt19937 rng(7);
  for (const auto& stops : stop_sets) {
    for (bool include : {false, true}) {
      Outcome whole = RunFilter({text}, stops, include);
      for (int trial = 0; trial < 300; ++trial) {
        std::vector<std::string> pieces;
        size_t pos = 0;
        while (pos < text.size()) {
          size_t len = 1 + rng() % 6;
          // cut only at character boundaries (the detokenizer emits whole characters)
          size_t end = std::min(text.size(), pos + len);
          while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
          pieces.push_back(text.substr(pos, end - pos));
          pos = end;
        }
        Outcome o = RunFilter(pieces, stops, include);
        ASSERT_EQ(o.streamed, whole.streamed) << stops[0] << " include=" << include;
        ASSERT_EQ(o.matched, whole.matched);
      }
    }
  }
}

TEST(Utf8Test, LengthAndStepBack) {
  EXPECT_EQ(Utf8Length("aé→"), 3u);
  std::string s = "aé→";
  EXPECT_EQ(Utf8StepBack(s, s.size(), 1), 3u);
  EXPECT_EQ(Utf8StepBack(s, s.size(), 2), 1u);
  EXPECT_EQ(Utf8StepBack(s, s.size(), 9), 0u);
}

}  // namespace
}  // namespace gemmad::api
