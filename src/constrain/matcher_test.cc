// Matcher semantics over small grammars: masks equal brute force, accept/reject, termination,
// rollback, special-token terminals.
#include "constrain/matcher.h"

#include <gtest/gtest.h>

#include "base/rng.h"
#include "constrain/testing/small_vocab.h"

namespace gemmad::constrain {
namespace {

using testing::Allowed;
using testing::BruteMask;
using testing::FastMask;
using testing::SmallVocab;

std::shared_ptr<const CompiledGrammar> MustCompile(const ConstraintSpec& spec) {
  auto g = Compile(spec, SmallVocab());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : nullptr;
}

ConstraintSpec Regex(std::string r) {
  ConstraintSpec s;
  s.kind = ConstraintKind::kRegex;
  s.regex = std::move(r);
  return s;
}
ConstraintSpec Ebnf(std::string g) {
  ConstraintSpec s;
  s.kind = ConstraintKind::kGrammar;
  s.grammar = std::move(g);
  return s;
}
ConstraintSpec Schema(std::string j) {
  ConstraintSpec s;
  s.kind = ConstraintKind::kJsonSchema;
  s.json_schema = std::move(j);
  return s;
}

bool Matches(const ConstraintSpec& spec, std::string_view text) {
  auto g = MustCompile(spec);
  Matcher m(g);
  return (text.empty() || m.AcceptBytes(text)) && m.CanTerminate();
}

// Random walk: at every step the fast mask equals the brute-force one.
void WalkCompare(const ConstraintSpec& spec, uint64_t seed, int steps) {
  auto g = MustCompile(spec);
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  Rng rng(seed);
  for (int i = 0; i < steps && !m.IsTerminated(); ++i) {
    auto fast = FastMask(m);
    auto brute = BruteMask(m);
    ASSERT_EQ(Allowed(fast), Allowed(brute)) << "step " << i << " seed " << seed;
    auto allowed = Allowed(fast);
    ASSERT_FALSE(allowed.empty()) << "dead end at step " << i;
    ASSERT_TRUE(m.AcceptToken(allowed[rng.Below(allowed.size())]));
  }
}

TEST(Matcher, RegexAcceptReject) {
  auto spec = Regex("[a-c]+x(yz)?");
  EXPECT_TRUE(Matches(spec, "abx"));
  EXPECT_TRUE(Matches(spec, "cxyz"));
  EXPECT_FALSE(Matches(spec, "x"));
  EXPECT_FALSE(Matches(spec, "abxy"));
  EXPECT_FALSE(Matches(spec, "abd"));
}

TEST(Matcher, TerminationAndStopTokens) {
  auto g = MustCompile(Regex("ab"));
  Matcher m(g);
  EXPECT_FALSE(m.CanTerminate());
  EXPECT_FALSE(m.AcceptToken(testing::kEos));
  ASSERT_TRUE(m.AcceptBytes("ab"));
  EXPECT_TRUE(m.CanTerminate());
  EXPECT_TRUE(m.MustTerminate());
  auto allowed = Allowed(FastMask(m));
  EXPECT_EQ(allowed, (std::vector<int32_t>{testing::kEos, testing::kToolResponse}));
  EXPECT_TRUE(m.AcceptToken(testing::kEos));
  EXPECT_TRUE(m.IsTerminated());
  EXPECT_FALSE(m.AcceptBytes("a"));
  EXPECT_TRUE(m.Rollback(1));
  EXPECT_FALSE(m.IsTerminated());
  EXPECT_EQ(m.num_accepted_tokens(), 1);
}

TEST(Matcher, RollbackRestoresState) {
  auto g = MustCompile(Ebnf("root ::= \"(\" root \")\" | \"x\"\n"));
  Matcher m(g);
  ASSERT_TRUE(m.AcceptBytes("(("));
  auto before = FastMask(m);
  ASSERT_TRUE(m.AcceptBytes("(x"));
  ASSERT_TRUE(m.AcceptBytes(")"));
  EXPECT_TRUE(m.Rollback(2));
  EXPECT_EQ(FastMask(m), before);
  EXPECT_FALSE(m.Rollback(5));
  m.Reset();
  EXPECT_EQ(m.num_accepted_tokens(), 0);
  EXPECT_TRUE(m.AcceptBytes("x"));
  EXPECT_TRUE(m.CanTerminate());
}

TEST(Matcher, MinBytesToComplete) {
  auto g = MustCompile(Ebnf("root ::= \"[\" item (\",\" item)* \"]\"\nitem ::= [0-9]+\n"));
  Matcher m(g);
  EXPECT_EQ(m.MinBytesToComplete(), 3);
  ASSERT_TRUE(m.AcceptBytes("[1,"));
  EXPECT_EQ(m.MinBytesToComplete(), 2);
}

TEST(Matcher, MasksEqualBruteForce) {
  const ConstraintSpec specs[] = {
      Regex("(ab|abc)*[0-9]{2,4}\\n?"),
      Ebnf("root ::= obj\nobj ::= \"{\" (pair (\",\" pair)*)? \"}\"\npair ::= str \":\" (str | obj | num)\n"
           "str ::= \"\\\"\" [a-z]* \"\\\"\"\nnum ::= [0-9]+\n"),
      Schema(R"({"type":"object","properties":{"name":{"type":"string","maxLength":5},
                 "n":{"type":"integer","minimum":-3,"maximum":120},"tags":{"type":"array","items":{"type":"string"},"maxItems":3}},
                 "required":["name"]})"),
      Schema(R"({"anyOf":[{"type":"number"},{"type":"boolean"},{"type":"null"}]})"),
  };
  for (const auto& s : specs) {
    for (uint64_t seed = 1; seed <= 5; ++seed) WalkCompare(s, seed, 40);
  }
}

TEST(Matcher, SpecialTokensOnlyAsTerminals) {
  ConstraintSpec s;
  s.kind = ConstraintKind::kGemmaToolCalls;
  s.tools = {{"get_weather", R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"}};
  s.max_tool_calls = 1;
  auto g = MustCompile(s);
  Matcher m(g);
  EXPECT_EQ(Allowed(FastMask(m)), (std::vector<int32_t>{testing::kToolCallOpen}));
  ASSERT_TRUE(m.AcceptToken(testing::kToolCallOpen));
  ASSERT_TRUE(m.AcceptBytes("call:get_weather{city:"));
  EXPECT_FALSE(m.AcceptBytes("\""));
  ASSERT_TRUE(m.AcceptToken(testing::kQuoteToken));
  ASSERT_TRUE(m.AcceptBytes("Paris, \"France\"\n"));
  EXPECT_FALSE(m.AcceptBytes("<|"));
  ASSERT_TRUE(m.AcceptToken(testing::kQuoteToken));
  ASSERT_TRUE(m.AcceptBytes("}"));
  EXPECT_FALSE(m.CanTerminate());
  ASSERT_TRUE(m.AcceptToken(testing::kToolCallClose));
  EXPECT_TRUE(m.CanTerminate());
  EXPECT_TRUE(m.AcceptToken(testing::kToolResponse));
  for (uint64_t seed = 1; seed <= 4; ++seed) WalkCompare(s, seed, 30);
}

}  // namespace
}  // namespace gemmad::constrain
