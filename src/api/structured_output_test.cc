// MatcherConstraint: the grammar waits for the end of the thinking channel when gated.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/structured_output.h"
#include "constrain/vocabulary.h"
#include "sample/token_constraint.h"

namespace gemmad::api {
namespace {

// Ids 0..127 as Gemma 4's marker ids are laid out: 1 stop, 48 <|tool_call>, 100 <|channel>,
// 101 <channel|>, 105 <|turn>; every other id below 128 is the one-byte token "a".."z" / digits.
std::shared_ptr<const constrain::CompiledGrammar> DigitsGrammar() {
  std::vector<std::string> bytes(128);
  std::vector<bool> special(128, false);
  for (int i = 0; i < 128; ++i) bytes[i] = std::string(1, static_cast<char>('0' + i % 10));
  for (auto [id, text] : {std::pair{1, "<eos>"}, std::pair{48, "<|tool_call>"}, std::pair{100, "<|channel>"},
                          std::pair{101, "<channel|>"}, std::pair{105, "<|turn>"}, std::pair{50, "<|tool_response>"},
                          std::pair{51, "<tool_response|>"}}) {
    bytes[id] = text;
    special[id] = true;
  }
  bytes[7] = "x";  // the only non-digit ordinary token
  auto vocab = constrain::Vocabulary::Create(bytes, special, {1});
  EXPECT_TRUE(vocab.ok());
  constrain::ConstraintSpec spec;
  spec.kind = constrain::ConstraintKind::kRegex;
  spec.regex = "[0-9]{2}";
  auto g = constrain::Compile(spec, *vocab);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return *g;
}

bool Allows(MatcherConstraint& c, int32_t id) {
  std::vector<uint32_t> mask(static_cast<size_t>(sample::BitmaskWords(128)));
  if (!c.FillNextTokenBitmask(mask)) return true;  // unrestricted
  return sample::BitmaskAllows(mask, id);
}

TEST(MatcherConstraintTest, UngatedConstrainsFromTheFirstToken) {
  std::vector<int32_t> prompt = {105, 20};
  MatcherConstraint c(DigitsGrammar(), /*gated=*/false, prompt);
  EXPECT_TRUE(c.active());
  EXPECT_FALSE(Allows(c, 7));
  EXPECT_FALSE(Allows(c, 101));
  EXPECT_TRUE(Allows(c, 2));
  EXPECT_TRUE(c.AcceptToken(2).ok());
  EXPECT_FALSE(c.AcceptToken(7).ok());  // rejected: the request finishes with an error
}

TEST(MatcherConstraintTest, PromptThatClosedTheChannelConstrainsAtOnce) {
  std::vector<int32_t> prompt = {105, 20, 100, 21, 101};  // thinking off: "...<|channel>thought\n<channel|>"
  MatcherConstraint c(DigitsGrammar(), /*gated=*/true, prompt);
  EXPECT_TRUE(c.active());
  EXPECT_FALSE(Allows(c, 7));
}

TEST(MatcherConstraintTest, GatedWaitsForTheChannelEnd) {
  std::vector<int32_t> prompt = {105, 20};  // thinking on: the prompt ends "<|turn>model\n"
  MatcherConstraint c(DigitsGrammar(), /*gated=*/true, prompt);
  EXPECT_FALSE(c.active());
  for (int32_t t : {100, 7, 7, 3}) {  // <|channel> then free reasoning text
    EXPECT_TRUE(Allows(c, 7));
    ASSERT_TRUE(c.AcceptToken(t).ok());
  }
  EXPECT_FALSE(c.active());
  ASSERT_TRUE(c.AcceptToken(101).ok());  // <channel|>: not part of the answer
  EXPECT_TRUE(c.active());
  EXPECT_FALSE(Allows(c, 7));
  EXPECT_FALSE(Allows(c, 1));  // nothing generated yet: no stop
  ASSERT_TRUE(c.AcceptToken(4).ok());
  ASSERT_TRUE(c.AcceptToken(5).ok());
  EXPECT_TRUE(Allows(c, 1));
  EXPECT_FALSE(Allows(c, 6));
}

TEST(MatcherConstraintTest, ToolCallMarkerEndsTheReasoning) {
  std::vector<int32_t> prompt = {105, 20};
  MatcherConstraint c(DigitsGrammar(), /*gated=*/true, prompt);
  ASSERT_TRUE(c.AcceptToken(100).ok());
  ASSERT_TRUE(c.AcceptToken(105).ok());  // a new turn inside: still not ended
  EXPECT_FALSE(c.active());
  ASSERT_TRUE(c.AcceptToken(48).ok());
  EXPECT_TRUE(c.active());
}

}  // namespace
}  // namespace gemmad::api
