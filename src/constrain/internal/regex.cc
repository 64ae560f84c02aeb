// Regex parser (regex.h): recursive descent straight into GrammarAst expressions.
#include "constrain/internal/regex.h"

#include <fmt/format.h>

#include <string>

#include "constrain/internal/utf8_ranges.h"

namespace gemmad::constrain::internal {
namespace {

constexpr uint32_t kMaxCp = 0x10FFFF;
constexpr int32_t kMaxRepeat = 100000;

std::vector<CodeRange> Digit() { return {{'0', '9'}}; }
std::vector<CodeRange> Word() { return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; }
// ECMAScript \s intersected with Python's str \s, so matches satisfy both validators.
std::vector<CodeRange> Space() {
  return {{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
          {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}};
}
std::vector<CodeRange> Dot() { return {{0, 9}, {11, 12}, {14, 0x2027}, {0x202A, kMaxCp}}; }

class Parser {
 public:
  Parser(std::string_view pattern, RegexTarget target, GrammarAst& ast)
      : s_(pattern), target_(target), ast_(ast) {}

  Result<ExprId> ParseTop(RegexAnchoring anchoring) {
    std::vector<ExprId> branches;
    while (true) {
      bool start = false, end = false;
      if (Peek('^')) {
        ++i_;
        start = true;
      }
      GEMMAD_ASSIGN_OR_RETURN(ExprId seq, ParseSeq(/*top=*/true, &end));
      if (anchoring == RegexAnchoring::kSearch) {
        std::vector<ExprId> parts;
        if (!start) parts.push_back(ast_.Star(Class({{0, kMaxCp}})));
        parts.push_back(seq);
        if (!end) parts.push_back(ast_.Star(Class({{0, kMaxCp}})));
        seq = ast_.Seq(std::move(parts));
      }
      branches.push_back(seq);
      if (i_ >= s_.size()) break;
      if (s_[i_] == '|') {
        ++i_;
        continue;
      }
      return Error(s_[i_] == ')' ? "unbalanced ')'" : "unexpected character");
    }
    return ast_.Alt(std::move(branches));
  }

 private:
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  Status Error(std::string_view what) const {
    return InvalidArgumentError(fmt::format("at offset {}: {}", i_, what));
  }
  Status Unsupported(std::string_view what) const {
    return UnimplementedError(fmt::format("at offset {}: {} is not supported", i_, what));
  }
  ExprId Class(const std::vector<CodeRange>& ranges) {
    return target_ == RegexTarget::kJsonString ? JsonEncodedClass(ranges, ast_)
                                               : ast_.CharClass(ranges);
  }

  Result<ExprId> ParseAlt() {
    std::vector<ExprId> branches;
    while (true) {
      GEMMAD_ASSIGN_OR_RETURN(ExprId seq, ParseSeq(/*top=*/false, nullptr));
      branches.push_back(seq);
      if (!Peek('|')) break;
      ++i_;
    }
    return ast_.Alt(std::move(branches));
  }

  // A concatenation up to '|' or ')' (or, at top level, '$' at the very end).
  Result<ExprId> ParseSeq(bool top, bool* end_anchor) {
    std::vector<ExprId> items;
    while (i_ < s_.size() && s_[i_] != '|' && s_[i_] != ')') {
      if (s_[i_] == '$') {
        size_t save = i_++;
        if (top && (i_ == s_.size() || s_[i_] == '|')) {
          *end_anchor = true;
          break;
        }
        i_ = save;
        return Unsupported("an anchor '$' before the end of the pattern");
      }
      if (s_[i_] == '^') return Unsupported("an anchor '^' after the start of the pattern");
      GEMMAD_ASSIGN_OR_RETURN(ExprId atom, ParseAtom());
      GEMMAD_ASSIGN_OR_RETURN(atom, ParseQuantifiers(atom));
      items.push_back(atom);
    }
    return ast_.Seq(std::move(items));
  }

  Result<ExprId> ParseQuantifiers(ExprId atom) {
    while (i_ < s_.size()) {
      int32_t min = 0, max = -1;
      const char c = s_[i_];
      if (c == '*') {
        ++i_;
      } else if (c == '+') {
        min = 1;
        ++i_;
      } else if (c == '?') {
        max = 1;
        ++i_;
      } else if (c == '{' && ParseBraces(min, max)) {
        if (max >= 0 && max < min) return Error("quantifier {n,m} with m < n");
        if (min > kMaxRepeat || max > kMaxRepeat) return Error("repetition count too large");
      } else {
        break;
      }
      if (Peek('?')) ++i_;  // lazy: same language
      if (i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '+' || s_[i_] == '?')) {
        return Error("nothing to repeat");
      }
      atom = ast_.Repeat(atom, min, max);
    }
    return atom;
  }

  // {n}, {n,}, {n,m}; leaves i_ unchanged (literal '{') when malformed.
  bool ParseBraces(int32_t& min, int32_t& max) {
    size_t j = i_ + 1;
    auto number = [&](int64_t& v) {
      size_t start = j;
      v = 0;
      while (j < s_.size() && s_[j] >= '0' && s_[j] <= '9') {
        v = std::min<int64_t>(v * 10 + (s_[j] - '0'), 1'000'000'000);
        ++j;
      }
      return j > start;
    };
    int64_t a = 0, b = -1;
    if (!number(a)) return false;
    if (j < s_.size() && s_[j] == ',') {
      ++j;
      int64_t v;
      if (number(v)) b = v;
    } else {
      b = a;
    }
    if (j >= s_.size() || s_[j] != '}') return false;
    i_ = j + 1;
    min = static_cast<int32_t>(std::min<int64_t>(a, kMaxRepeat + 1));
    max = b < 0 ? -1 : static_cast<int32_t>(std::min<int64_t>(b, kMaxRepeat + 1));
    return true;
  }

  Result<ExprId> ParseAtom() {
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      GEMMAD_RETURN_IF_ERROR(ast_.meter().CheckNesting(++depth_, "the regex's group"));
      if (Peek('?')) {
        ++i_;
        if (Peek(':')) {
          ++i_;
        } else if (Peek('<') && i_ + 1 < s_.size() && s_[i_ + 1] != '=' && s_[i_ + 1] != '!') {
          size_t close = s_.find('>', i_);
          if (close == std::string_view::npos) return Error("unterminated group name");
          i_ = close + 1;
        } else {
          return Unsupported("lookaround or inline flags '(?'");
        }
      }
      GEMMAD_ASSIGN_OR_RETURN(ExprId inner, ParseAlt());
      if (!Peek(')')) return Error("missing ')'");
      ++i_;
      --depth_;
      return inner;
    }
    if (c == '[') return ParseClass();
    if (c == '.') {
      ++i_;
      return Class(Dot());
    }
    if (c == '*' || c == '+' || c == '?') return Error("nothing to repeat");
    if (c == '\\') {
      std::vector<CodeRange> ranges;
      GEMMAD_RETURN_IF_ERROR(ParseEscape(/*in_class=*/false, ranges));
      return Class(ranges);
    }
    uint32_t cp;
    GEMMAD_RETURN_IF_ERROR(ReadChar(cp));
    return Class({{cp, cp}});
  }

  Status ReadChar(uint32_t& cp) {
    int n = DecodeUtf8(std::string(s_.substr(i_, 4)), 0, cp);
    if (n == 0) return Error("invalid UTF-8");
    i_ += static_cast<size_t>(n);
    return OkStatus();
  }

  Status Hex(size_t digits, uint32_t& v) {
    v = 0;
    for (size_t k = 0; k < digits; ++k) {
      if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) {
        return Error("bad hexadecimal escape");
      }
      const char h = s_[i_++];
      v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return OkStatus();
  }

  // After a backslash: appends the code points the escape denotes.
  Status ParseEscape(bool in_class, std::vector<CodeRange>& out) {
    ++i_;
    if (i_ >= s_.size()) return Error("trailing backslash");
    const char c = s_[i_++];
    auto add = [&](std::vector<CodeRange> r) { out.insert(out.end(), r.begin(), r.end()); };
    switch (c) {
      case 'd': add(Digit()); return OkStatus();
      case 'w': add(Word()); return OkStatus();
      case 's': add(Space()); return OkStatus();
      case 'D': add(ComplementRanges(NormalizeRanges(Digit()), kMaxCp)); return OkStatus();
      case 'W': add(ComplementRanges(NormalizeRanges(Word()), kMaxCp)); return OkStatus();
      case 'S': add(ComplementRanges(NormalizeRanges(Space()), kMaxCp)); return OkStatus();
      case 'n': add({{'\n', '\n'}}); return OkStatus();
      case 'r': add({{'\r', '\r'}}); return OkStatus();
      case 't': add({{'\t', '\t'}}); return OkStatus();
      case 'f': add({{'\f', '\f'}}); return OkStatus();
      case 'v': add({{'\v', '\v'}}); return OkStatus();
      case '0': add({{0, 0}}); return OkStatus();
      case 'b':
        if (in_class) {
          add({{8, 8}});
          return OkStatus();
        }
        --i_;
        return Unsupported("the word boundary \\b");
      case 'B': --i_; return Unsupported("\\B");
      case 'x': {
        uint32_t v;
        GEMMAD_RETURN_IF_ERROR(Hex(2, v));
        add({{v, v}});
        return OkStatus();
      }
      case 'u': {
        uint32_t v;
        if (Peek('{')) {
          ++i_;
          size_t close = s_.find('}', i_);
          if (close == std::string_view::npos || close == i_ || close - i_ > 6) return Error("bad \\u{...} escape");
          GEMMAD_RETURN_IF_ERROR(Hex(close - i_, v));
          ++i_;
        } else {
          GEMMAD_RETURN_IF_ERROR(Hex(4, v));
        }
        if (v > kMaxCp) return Error("code point out of range");
        add({{v, v}});
        return OkStatus();
      }
      case 'c': {
        if (i_ >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[i_]))) return Error("bad \\c escape");
        uint32_t v = static_cast<uint32_t>(s_[i_++]) % 32;
        add({{v, v}});
        return OkStatus();
      }
      default: break;
    }
    if (c >= '1' && c <= '9') {
      i_ -= 2;  // report at the backslash
      return Unsupported("a backreference");
    }
    if (c == 'k' || c == 'p' || c == 'P') {
      i_ -= 2;
      return Unsupported(fmt::format("the escape \\{}", c));
    }
    if (std::isalnum(static_cast<unsigned char>(c))) {
      i_ -= 2;
      return Error(fmt::format("unknown escape \\{}", c));
    }
    --i_;  // an escaped punctuation or non-ASCII character stands for itself
    uint32_t cp;
    GEMMAD_RETURN_IF_ERROR(ReadChar(cp));
    add({{cp, cp}});
    return OkStatus();
  }

  Result<ExprId> ParseClass() {
    ++i_;
    bool negate = false;
    if (Peek('^')) {
      negate = true;
      ++i_;
    }
    std::vector<CodeRange> ranges;
    bool first = true;
    while (true) {
      if (i_ >= s_.size()) return Error("missing ']'");
      if (s_[i_] == ']' && !first) break;
      first = false;
      std::vector<CodeRange> lo_set;
      GEMMAD_RETURN_IF_ERROR(ClassAtom(lo_set));
      if (Peek('-') && i_ + 1 < s_.size() && s_[i_ + 1] != ']') {
        ++i_;
        std::vector<CodeRange> hi_set;
        GEMMAD_RETURN_IF_ERROR(ClassAtom(hi_set));
        if (lo_set.size() != 1 || hi_set.size() != 1 || lo_set[0].lo != lo_set[0].hi ||
            hi_set[0].lo != hi_set[0].hi) {
          return Error("a class escape cannot bound a range");
        }
        if (hi_set[0].lo < lo_set[0].lo) return Error("range out of order in character class");
        ranges.push_back({lo_set[0].lo, hi_set[0].lo});
      } else {
        ranges.insert(ranges.end(), lo_set.begin(), lo_set.end());
      }
    }
    ++i_;
    ranges = NormalizeRanges(std::move(ranges));
    if (negate) ranges = ComplementRanges(ranges, kMaxCp);
    return Class(ranges);
  }

  Status ClassAtom(std::vector<CodeRange>& out) {
    if (s_[i_] == '\\') return ParseEscape(/*in_class=*/true, out);
    uint32_t cp;
    GEMMAD_RETURN_IF_ERROR(ReadChar(cp));
    out.push_back({cp, cp});
    return OkStatus();
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;  // open groups
  RegexTarget target_;
  GrammarAst& ast_;
};

void AppendJsonEscape(uint32_t cp, std::vector<ExprId>& alts, GrammarAst& ast) {
  switch (cp) {
    case '"': alts.push_back(ast.Bytes("\\\"")); return;
    case '\\': alts.push_back(ast.Bytes("\\\\")); return;
    case '\n': alts.push_back(ast.Bytes("\\n")); break;
    case '\r': alts.push_back(ast.Bytes("\\r")); break;
    case '\t': alts.push_back(ast.Bytes("\\t")); break;
    case '\b': alts.push_back(ast.Bytes("\\b")); break;
    case '\f': alts.push_back(ast.Bytes("\\f")); break;
    default: break;
  }
  // \u00XX, hex digits in either case.
  std::vector<ExprId> parts = {ast.Bytes("\\u00")};
  for (uint32_t nib : {cp >> 4, cp & 15u}) {
    const char* digits = "0123456789abcdef";
    std::vector<CodeRange> r = {{static_cast<uint32_t>(digits[nib]), static_cast<uint32_t>(digits[nib])}};
    if (nib >= 10) r.push_back({static_cast<uint32_t>(digits[nib] - 32), static_cast<uint32_t>(digits[nib] - 32)});
    parts.push_back(ast.ByteClass(r));
  }
  alts.push_back(ast.Seq(std::move(parts)));
}

}  // namespace

ExprId JsonEncodedClass(const std::vector<CodeRange>& ranges, GrammarAst& ast) {
  std::vector<CodeRange> norm = NormalizeRanges(ranges);
  const std::vector<CodeRange> special = {{0, 0x1F}, {'"', '"'}, {'\\', '\\'}};
  std::vector<CodeRange> raw;
  std::vector<ExprId> alts;
  for (const auto& r : norm) {
    uint32_t lo = r.lo;
    for (const auto& sp : special) {
      if (lo > r.hi) break;
      if (sp.hi < lo) continue;
      if (sp.lo > r.hi) break;
      if (sp.lo > lo) raw.push_back({lo, sp.lo - 1});
      for (uint32_t cp = std::max(lo, sp.lo); cp <= std::min(r.hi, sp.hi); ++cp) {
        AppendJsonEscape(cp, alts, ast);
      }
      lo = sp.hi + 1;
    }
    if (lo <= r.hi) raw.push_back({lo, r.hi});
  }
  if (!raw.empty()) alts.insert(alts.begin(), ast.CharClass(raw));
  return ast.Alt(std::move(alts));
}

Result<ExprId> ParseRegex(std::string_view pattern, RegexTarget target, RegexAnchoring anchoring,
                          GrammarAst& ast) {
  Parser p(pattern, target, ast);
  return p.ParseTop(anchoring);
}

}  // namespace gemmad::constrain::internal
