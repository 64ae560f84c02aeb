// Regex engine tests: the GPT-2 / Llama 3 split patterns, lookahead, case folding (incl. the
// long s), repetition forms, find_iter empty-match rules, and rejected syntax.
#include "tokenizer/regex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmad::tokenizer {
namespace {

std::vector<std::string> Matches(const std::string& pattern, const std::string& text) {
  auto re = Regex::Compile(pattern);
  EXPECT_TRUE(re.ok()) << re.status().ToString();
  std::vector<std::string> out;
  if (!re.ok()) return out;
  for (auto [a, b] : (*re)->FindAll(text)) out.push_back(text.substr(a, b - a));
  return out;
}

using V = std::vector<std::string>;

TEST(Regex, Gpt2Pattern) {
  const std::string gpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  EXPECT_EQ(Matches(gpt2, "Hello world's  123!!\n"), (V{"Hello", " world", "'s", " ", " 123", "!!", "\n"}));
  EXPECT_EQ(Matches(gpt2, "a   b"), (V{"a", "  ", " b"}));
  EXPECT_EQ(Matches(gpt2, "日本\u3000語"), (V{"日本", "\u3000", "語"}));
}

TEST(Regex, Llama3Pattern) {
  const std::string llama3 =
      R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  EXPECT_EQ(Matches(llama3, "I'M 12345 ok\n\n"), (V{"I", "'M", " ", "123", "45", " ok", "\n\n"}));
  EXPECT_EQ(Matches(llama3, "x'\u017F"), (V{"x", "'\u017F"}));  // long s folds to s
}

TEST(Regex, RepetitionForms) {
  EXPECT_EQ(Matches("a{2}", "aaaaa"), (V{"aa", "aa"}));
  EXPECT_EQ(Matches("a{2,}", "aaaaa"), (V{"aaaaa"}));
  EXPECT_EQ(Matches("a{1,2}?b", "aab"), (V{"aab"}));
  EXPECT_EQ(Matches("a+?", "aaa"), (V{"a", "a", "a"}));
  EXPECT_EQ(Matches("a++a", "aaa"), V{});  // possessive: never gives back
  EXPECT_EQ(Matches("x{,2}", "x{,2}"), (V{"x", "", "", "", ""}));  // Ruby syntax: {,n} is {0,n}
  EXPECT_EQ(Matches("x{2", "x{2"), (V{"x{2"}));                      // not a quantifier: literal
  EXPECT_EQ(Matches("[\\d-]+", "a1-2b"), (V{"1-2"}));
  EXPECT_EQ(Matches("(?=a)a|b", "ab"), (V{"a", "b"}));
  EXPECT_EQ(Matches("^a|b$", "a\nab\nb"), (V{"a", "a", "b", "b"}));
}

TEST(Regex, EmptyMatchesFollowOniguruma) {
  // An empty match right after the previous match is skipped.
  EXPECT_EQ(Matches("a*", "baa"), (V{"", "aa"}));
  EXPECT_EQ(Matches("x?", "ab"), (V{"", "", ""}));
}

TEST(Regex, RejectsUnsupportedSyntax) {
  for (const char* p : {"\\bx", "(?<=a)b", "\\p{Greek}", "(a*)*", "[[a]]", "a**", "(?P<n>a)", "\\1", "[a", "a)"}) {
    EXPECT_FALSE(Regex::Compile(p).ok()) << p;
  }
}

}  // namespace
}  // namespace gemmad::tokenizer
