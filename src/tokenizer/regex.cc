// Regex matching: an explicit-stack backtracking interpreter over the compiled program.
#include "tokenizer/regex.h"

#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {
thread_local std::vector<std::pair<int32_t, size_t>> tls_stack;
}  // namespace

bool Regex::CharSet::Matches(char32_t c) const {
  bool m = false;
  for (const auto& [lo, hi] : ranges) {
    if (c >= lo && c <= hi) {
      m = true;
      break;
    }
  }
  if (!m && categories != 0) m = (categories >> static_cast<int>(unicode::GetCategory(c))) & 1;
  if (!m && specials != 0) {
    if ((specials & 1) && unicode::IsWhitespace(c)) m = true;
    if (!m && (specials & 2) && !unicode::IsWhitespace(c)) m = true;
    if (!m && (specials & 12)) {
      bool w = unicode::IsOnigWordChar(c);
      if (((specials & 4) && w) || ((specials & 8) && !w)) m = true;
    }
    if (!m && (specials & 48)) {
      bool d = unicode::GetCategory(c) == unicode::Category::kNd;
      if (((specials & 16) && d) || ((specials & 32) && !d)) m = true;
    }
  }
  return m != negated;
}

bool Regex::Run(int32_t pc0, std::string_view text, size_t pos0, size_t* end) const {
  auto& stack = tls_stack;
  const size_t base = stack.size();
  stack.emplace_back(pc0, pos0);
  const size_t n = text.size();
  while (stack.size() > base) {
    auto [pc, pos] = stack.back();
    stack.pop_back();
    bool failed = false;
    while (!failed) {
      const Inst& in = prog_[pc];
      switch (in.op) {
        case Op::kSet:
        case Op::kAny: {
          if (pos >= n) {
            failed = true;
            break;
          }
          size_t p = pos;
          char32_t c = unicode::DecodeUtf8(text, &p);
          if (in.op == Op::kAny ? c == '\n' : !sets_[in.x].Matches(c)) {
            failed = true;
            break;
          }
          pos = p;
          ++pc;
          break;
        }
        case Op::kSplit:
          stack.emplace_back(in.y, pos);
          pc = in.x;
          break;
        case Op::kJmp:
          pc = in.x;
          break;
        case Op::kMatch:
          stack.resize(base);
          *end = pos;
          return true;
        case Op::kLookahead:
        case Op::kNegLookahead:
        case Op::kAtomic: {
          size_t e = 0;
          bool m = Run(pc + 1, text, pos, &e);
          if (m != (in.op != Op::kNegLookahead)) {
            failed = true;
            break;
          }
          if (in.op == Op::kAtomic) pos = e;
          pc = in.y;
          break;
        }
        case Op::kBol:
          if (pos != 0 && text[pos - 1] != '\n') failed = true;
          ++pc;
          break;
        case Op::kEol:
          if (pos != n && text[pos] != '\n') failed = true;
          ++pc;
          break;
        case Op::kBegin:
          if (pos != 0) failed = true;
          ++pc;
          break;
        case Op::kEnd:
          if (pos != n) failed = true;
          ++pc;
          break;
      }
    }
  }
  return false;
}

bool Regex::Search(std::string_view text, size_t from, size_t* start, size_t* end) const {
  size_t pos = from;
  while (true) {
    if (Run(start_, text, pos, end)) {
      *start = pos;
      return true;
    }
    if (pos >= text.size()) return false;
    unicode::DecodeUtf8(text, &pos);
  }
}

std::vector<std::pair<size_t, size_t>> Regex::FindAll(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> out;
  size_t last_end = 0;
  bool have_last = false;
  size_t last_match_end = 0;
  while (last_end <= text.size()) {
    size_t s, e;
    if (!Search(text, last_end, &s, &e)) break;
    if (e == s && have_last && last_match_end == e) {
      if (last_end >= text.size()) {
        ++last_end;
      } else {
        unicode::DecodeUtf8(text, &last_end);
      }
      continue;
    }
    last_end = e;
    last_match_end = e;
    have_last = true;
    out.emplace_back(s, e);
  }
  return out;
}

}  // namespace gemmad::tokenizer
