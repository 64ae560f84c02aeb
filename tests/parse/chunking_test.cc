// Chunking invariance: for every fixture, GEMMAD_PARSE_SPLITS random ways of cutting the text
// into deltas (plus every two-piece cut and byte-by-byte) give the same message as the one-shot
// parse and an equivalent event stream (equal CoalesceDeltas), and every stream satisfies the
// delta contract.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixtures.h"

#ifndef GEMMAD_PARSE_SPLITS
#define GEMMAD_PARSE_SPLITS 1000
#endif

namespace gemmad::parse::testing {
namespace {

std::string Join(const std::vector<std::string>& chunks) {
  std::string s;
  for (const auto& c : chunks) s += c;
  return s;
}

std::string Show(const std::vector<std::string>& chunks) {
  std::string s;
  for (const auto& c : chunks) s += "[" + c + "]";
  return s;
}

class ChunkingTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(ChunkingTest, EverySplitIsEquivalent) {
  const Fixture& f = GetParam();
  const std::string text = Join(f.chunks);
  const RunResult whole = RunOneShot(f.setup, text);
  const std::vector<Delta> canonical = CoalesceDeltas(whole.deltas);
  ASSERT_EQ(whole.message, Expected(f));

  auto check = [&](const std::vector<std::string>& chunks) {
    const RunResult r = RunChunks(f.setup, chunks);
    const std::string bad = CheckStream(r.deltas);
    if (!bad.empty() || r.message != whole.message || CoalesceDeltas(r.deltas) != canonical) {
      ADD_FAILURE() << "split " << Show(chunks) << "\n" << bad << "\ngot:\n"
                    << DebugString(r.deltas) << "want (coalesced):\n" << DebugString(canonical);
      return false;
    }
    return true;
  };
  if (!check(FixedSplit(text, 1))) return;
  for (size_t cut = 1; cut < text.size(); ++cut) {
    if (!check({text.substr(0, cut), text.substr(cut)})) return;
  }
  Rng rng(0x5eed0000u + std::hash<std::string>()(f.id) % 1000);
  for (int i = 0; i < GEMMAD_PARSE_SPLITS; ++i) {
    if (!check(RandomSplit(text, rng))) return;
  }
}

std::string FixtureName(const ::testing::TestParamInfo<Fixture>& info) { return info.param.id; }

INSTANTIATE_TEST_SUITE_P(All, ChunkingTest, ::testing::ValuesIn(AllFixtures()), FixtureName);

}  // namespace
}  // namespace gemmad::parse::testing

namespace gemmad::parse::testing {
namespace {

// Random model-like texts built from the pieces that matter to the grammar.
std::string RandomText(Rng& rng) {
  static const std::vector<std::string> kPieces = {
      "<|tool_call>", "<tool_call|>", "<|\"|>", "<|channel>", "<channel|>", "<turn|>",
      "<|tool_response>", "call:", "get_weather", "f", "{", "}", "[", "]", ",", ":", " ", "\n",
      "true", "fals", "e", "null", "1", "2.", "5", "-", "e9", "city", "Paris", "thought", "thou",
      "\n", "<", "|", "<|", "\"", "\\", "h\xC3\xA9", "\xE2\x82", "\xAC", "x<|\"", "|>", "<ch",
      "annel|>", "]}", "a:b", "<|tool", "_call>"};
  std::string s;
  const uint64_t n = 1 + rng.Below(40);
  for (uint64_t i = 0; i < n; ++i) s += kPieces[rng.Below(kPieces.size())];
  return s;
}

TEST(ChunkingGenerated, RandomTextsAreSplitInvariant) {
  Rng rng(20260518);
  const int num_texts = GEMMAD_PARSE_SPLITS < 10000 ? 3000 : 100000;
  for (int t = 0; t < num_texts; ++t) {
    const std::string text = RandomText(rng);
    const bool reasoning = rng.Below(4) != 0;
    const ParserSetup setup{.reasoning = reasoning,
                            .tools = !reasoning || rng.Below(4) != 0,  // (no parser: passthrough)
                            .prompt_in_reasoning = rng.Below(4) == 0,
                            .parallel_tool_calls = rng.Below(3) != 0};
    const RunResult whole = RunOneShot(setup, text);
    const std::vector<Delta> canonical = CoalesceDeltas(whole.deltas);
    ASSERT_EQ(CheckStream(whole.deltas), "") << text;
    for (const auto& call : whole.message.tool_calls) {
      if (call.complete) {
        ASSERT_TRUE(nlohmann::json::accept(call.arguments)) << text << "\n" << call.arguments;
      }
    }
    for (int k = 0; k < 10; ++k) {
      const auto chunks = RandomSplit(text, rng);
      const RunResult r = RunChunks(setup, chunks);
      ASSERT_EQ(CheckStream(r.deltas), "") << Show(chunks);
      ASSERT_EQ(r.message, whole.message) << Show(chunks);
      ASSERT_EQ(CoalesceDeltas(r.deltas), canonical) << Show(chunks);
    }
  }
}

}  // namespace
}  // namespace gemmad::parse::testing
