// Regex: a small backtracking regular-expression engine for the pre-tokenizer/normalizer
// patterns of tokenizer.json files (GPT-2, Llama 3, Qwen 2, DeepSeek, o200k-style splits), with
// Oniguruma semantics (leftmost-first alternation, greedy/lazy quantifiers, Unicode classes).
// Supported: literals, '.', classes [...] with ranges and negation, \s \S \d \D \w \W \p{..}
// \P{..} (general categories), escapes, groups (...) (?:...) (?i:...) (?i), lookahead (?=...)
// (?!...), quantifiers ? * + {n} {n,} {n,m} (+ lazy '?' and possessive '+'), ^ $ \A \z.
// Anything else is a compile error naming the construct. Invariant: a compiled Regex is
// immutable and thread-safe; patterns whose repeated body can match empty are rejected, so
// matching always terminates.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace gemmad::tokenizer {

class Regex {
 public:
  static Result<std::shared_ptr<const Regex>> Compile(std::string_view pattern);

  // The first match at or after `from` (leftmost, then first alternative); false if none.
  bool Search(std::string_view text, size_t from, size_t* start, size_t* end) const;
  // All matches, left to right, as Oniguruma's find_iter reports them (an empty match right
  // after the previous match is skipped).
  std::vector<std::pair<size_t, size_t>> FindAll(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }

  // Compiled form (public for the compiler in regex_compile.cc).
  struct CharSet {
    bool negated = false;
    std::vector<std::pair<char32_t, char32_t>> ranges;
    uint32_t categories = 0;  // bit per unicode::Category
    // Special classes: bit 0 White_Space, 1 not White_Space, 2 onig \w, 3 not \w, 4 Nd, 5 not Nd.
    uint32_t specials = 0;
    bool Matches(char32_t c) const;
  };
  enum class Op : uint8_t { kSet, kAny, kSplit, kJmp, kMatch, kLookahead, kNegLookahead, kBol, kEol, kBegin, kEnd, kAtomic };
  struct Inst {
    Op op;
    int32_t x = 0, y = 0;  // kSet: set; kSplit: preferred, other; kJmp: target; look/atomic: sub-program, continue
  };

 private:
  friend class RegexCompiler;
  bool Run(int32_t pc, std::string_view text, size_t pos, size_t* end) const;

  std::string pattern_;
  std::vector<CharSet> sets_;
  std::vector<Inst> prog_;
  int32_t start_ = 0;
};

}  // namespace gemmad::tokenizer
