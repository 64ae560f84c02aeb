// EBNF front end (frontends.h): the GBNF-style notation xgrammar accepts.
//   rule      ::= name "::=" alternatives          (a body runs until the next `name ::=`)
//   alternatives: sequence ("|" sequence)*
//   sequence  : item*      item: primary ("*" | "+" | "?" | "{m}" | "{m,}" | "{m,n}")*
//   primary   : "string" | 'string' | [class] | [^class] | . | name | ( alternatives )
//   comments  : "#" to the end of the line; a trailing lookahead "(= ...)" is parsed and ignored.
#include <fmt/format.h>

#include <map>
#include <string>

#include "constrain/internal/frontends.h"
#include "constrain/internal/utf8_ranges.h"

namespace gemmad::constrain::internal {
namespace {

constexpr int32_t kMaxRepeat = 100000;

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

class EbnfParser {
 public:
  EbnfParser(std::string_view text, GrammarAst& ast) : s_(text), ast_(ast) {}

  Status Parse() {
    SkipSpace();
    if (i_ >= s_.size()) return Error("the grammar is empty");
    while (i_ < s_.size()) {
      const size_t at = i_;
      std::string name = ReadName();
      if (name.empty()) return Error("expected a rule name");
      SkipSpace();
      if (s_.substr(i_, 3) != "::=") return Error(fmt::format("expected '::=' after rule name '{}'", name));
      i_ += 3;
      int32_t rule = RuleId(name, at);
      if (defined_.count(name)) return ErrorAt(at, fmt::format("rule '{}' is defined twice", name));
      defined_[name] = at;
      GEMMAD_ASSIGN_OR_RETURN(ExprId body, ParseAlternatives(/*nested=*/false));
      ast_.SetBody(rule, body);
      SkipSpace();
    }
    for (const auto& [name, at] : referenced_) {
      if (!defined_.count(name)) return ErrorAt(at, fmt::format("undefined rule '{}'", name));
    }
    int32_t root = ast_.FindRule("root");
    if (root < 0 || !defined_.count("root")) return Error("no rule named 'root'");
    ast_.set_root(root);
    return OkStatus();
  }

 private:
  Status ErrorAt(size_t at, std::string_view what) const {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < at && k < s_.size(); ++k) {
      if (s_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return InvalidArgumentError(fmt::format("grammar: line {} col {}: {}", line, col, what));
  }
  Status Error(std::string_view what) const { return ErrorAt(i_, what); }

  void SkipSpace() {
    while (i_ < s_.size()) {
      if (std::isspace(static_cast<unsigned char>(s_[i_]))) {
        ++i_;
      } else if (s_[i_] == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  std::string ReadName() {
    size_t start = i_;
    if (i_ < s_.size() && IsNameStart(s_[i_])) {
      while (i_ < s_.size() && IsNameChar(s_[i_])) ++i_;
    }
    return std::string(s_.substr(start, i_ - start));
  }

  int32_t RuleId(const std::string& name, size_t at) {
    int32_t id = ast_.FindRule(name);
    if (id < 0) id = ast_.AddRule(name);
    if (!referenced_.count(name)) referenced_[name] = at;
    return id;
  }

  // True when the upcoming text is `name ::=` (the start of the next rule).
  bool AtRuleStart() {
    size_t save = i_;
    std::string name = ReadName();
    SkipSpace();
    bool yes = !name.empty() && s_.substr(i_, 3) == "::=";
    i_ = save;
    return yes;
  }

  Result<ExprId> ParseAlternatives(bool nested) {
    if (nested) {
      if (Status s = ast_.meter().CheckNesting(depth_ + 1, "a parenthesis"); !s.ok()) return Error(s.message());
    }
    if (nested) ++depth_;
    auto r = ParseAlternativesAtDepth(nested);
    if (nested) --depth_;
    return r;
  }

  Result<ExprId> ParseAlternativesAtDepth(bool nested) {
    std::vector<ExprId> alts;
    while (true) {
      GEMMAD_ASSIGN_OR_RETURN(ExprId seq, ParseSequence(nested));
      alts.push_back(seq);
      SkipSpace();
      if (i_ < s_.size() && s_[i_] == '|') {
        ++i_;
        continue;
      }
      break;
    }
    return ast_.Alt(std::move(alts));
  }

  Result<ExprId> ParseSequence(bool nested) {
    std::vector<ExprId> items;
    while (true) {
      SkipSpace();
      if (i_ >= s_.size() || s_[i_] == '|' || s_[i_] == ')') break;
      if (!nested && AtRuleStart()) break;
      if (s_.substr(i_, 2) == "(=") {
        GEMMAD_RETURN_IF_ERROR(SkipLookahead());
        continue;
      }
      if (Status s = ast_.CheckBudget(); !s.ok()) return s.code() == StatusCode::kCancelled ? s : Error(s.message());
      GEMMAD_ASSIGN_OR_RETURN(ExprId prim, ParsePrimary());
      GEMMAD_ASSIGN_OR_RETURN(prim, ParseQuantifiers(prim));
      items.push_back(prim);
    }
    if (!nested && i_ < s_.size() && s_[i_] == ')') return Error("unbalanced ')'");
    return ast_.Seq(std::move(items));
  }

  Status SkipLookahead() {
    i_ += 2;
    GEMMAD_ASSIGN_OR_RETURN(ExprId ignored, ParseAlternatives(/*nested=*/true));
    (void)ignored;
    SkipSpace();
    if (i_ >= s_.size() || s_[i_] != ')') return Error("missing ')' after lookahead");
    ++i_;
    return OkStatus();
  }

  Result<ExprId> ParseQuantifiers(ExprId e) {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '*') {
        e = ast_.Star(e);
      } else if (c == '+') {
        e = ast_.Plus(e);
      } else if (c == '?') {
        e = ast_.Optional(e);
      } else if (c == '{') {
        GEMMAD_ASSIGN_OR_RETURN(e, ParseBraces(e));
        continue;
      } else {
        break;
      }
      ++i_;
    }
    return e;
  }

  Result<ExprId> ParseBraces(ExprId e) {
    ++i_;
    auto number = [&](int64_t& v) {
      SkipSpace();
      size_t start = i_;
      v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        v = std::min<int64_t>(v * 10 + (s_[i_] - '0'), 1'000'000'000);
        ++i_;
      }
      return i_ > start;
    };
    int64_t lo = 0, hi = -1;
    if (!number(lo)) return Error("expected a repetition count");
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == ',') {
      ++i_;
      int64_t v;
      if (number(v)) hi = v;
    } else {
      hi = lo;
    }
    SkipSpace();
    if (i_ >= s_.size() || s_[i_] != '}') return Error("expected '}'");
    ++i_;
    if (lo > kMaxRepeat || hi > kMaxRepeat) return Error("repetition count too large");
    if (hi >= 0 && hi < lo) return Error("repetition {m,n} with n < m");
    return ast_.Repeat(e, static_cast<int32_t>(lo), static_cast<int32_t>(hi));
  }

  Result<ExprId> ParsePrimary() {
    const char c = s_[i_];
    if (c == '"' || c == '\'') return ParseString(c);
    if (c == '[') return ParseClass();
    if (c == '.') {
      ++i_;
      return ast_.CharClass({{0, 0x10FFFF}});
    }
    if (c == '(') {
      ++i_;
      GEMMAD_ASSIGN_OR_RETURN(ExprId inner, ParseAlternatives(/*nested=*/true));
      SkipSpace();
      if (i_ >= s_.size() || s_[i_] != ')') return Error("missing ')'");
      ++i_;
      return inner;
    }
    if (IsNameStart(c)) {
      size_t at = i_;
      std::string name = ReadName();
      return ast_.Ref(RuleId(name, at));
    }
    return Error(fmt::format("unexpected character '{}'", c));
  }

  Status ReadEscape(uint32_t& cp) {
    ++i_;
    if (i_ >= s_.size()) return Error("trailing backslash");
    const char c = s_[i_++];
    auto hex = [&](size_t n) -> Status {
      cp = 0;
      for (size_t k = 0; k < n; ++k) {
        if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return Error("bad hexadecimal escape");
        const char h = s_[i_++];
        cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
      }
      if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("escape is not a Unicode scalar value");
      return OkStatus();
    };
    switch (c) {
      case 'n': cp = '\n'; return OkStatus();
      case 'r': cp = '\r'; return OkStatus();
      case 't': cp = '\t'; return OkStatus();
      case 'f': cp = '\f'; return OkStatus();
      case 'v': cp = '\v'; return OkStatus();
      case 'b': cp = '\b'; return OkStatus();
      case 'a': cp = '\a'; return OkStatus();
      case 'e': cp = 0x1B; return OkStatus();
      case '0': cp = 0; return OkStatus();
      case 'x': return hex(2);
      case 'u': return hex(4);
      case 'U': return hex(8);
      default: break;
    }
    if (std::isalnum(static_cast<unsigned char>(c))) {
      --i_;
      return Error(fmt::format("unknown escape '\\{}'", c));
    }
    --i_;
    return ReadChar(cp);
  }

  Status ReadChar(uint32_t& cp) {
    int n = DecodeUtf8(std::string(s_.substr(i_, 4)), 0, cp);
    if (n == 0) return Error("invalid UTF-8");
    i_ += static_cast<size_t>(n);
    return OkStatus();
  }

  Result<ExprId> ParseString(char quote) {
    ++i_;
    std::string bytes;
    while (true) {
      if (i_ >= s_.size() || s_[i_] == '\n') return Error("unterminated string literal");
      if (s_[i_] == quote) break;
      uint32_t cp;
      if (s_[i_] == '\\') {
        GEMMAD_RETURN_IF_ERROR(ReadEscape(cp));
      } else {
        GEMMAD_RETURN_IF_ERROR(ReadChar(cp));
      }
      AppendUtf8(cp, bytes);
    }
    ++i_;
    return ast_.Bytes(bytes);
  }

  Result<ExprId> ParseClass() {
    ++i_;
    bool negate = false;
    if (i_ < s_.size() && s_[i_] == '^') {
      negate = true;
      ++i_;
    }
    std::vector<CodeRange> ranges;
    while (true) {
      if (i_ >= s_.size()) return Error("missing ']'");
      if (s_[i_] == ']') break;
      uint32_t lo, hi;
      GEMMAD_RETURN_IF_ERROR(ClassChar(lo));
      hi = lo;
      if (i_ + 1 < s_.size() && s_[i_] == '-' && s_[i_ + 1] != ']') {
        ++i_;
        GEMMAD_RETURN_IF_ERROR(ClassChar(hi));
        if (hi < lo) return Error("range out of order in character class");
      }
      ranges.push_back({lo, hi});
    }
    ++i_;
    ranges = NormalizeRanges(std::move(ranges));
    if (negate) ranges = ComplementRanges(ranges, 0x10FFFF);
    return ast_.CharClass(std::move(ranges));
  }

  Status ClassChar(uint32_t& cp) {
    if (s_[i_] == '\\') return ReadEscape(cp);
    return ReadChar(cp);
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;  // open parentheses
  GrammarAst& ast_;
  std::map<std::string, size_t> defined_;
  std::map<std::string, size_t> referenced_;
};

}  // namespace

Status BuildFromEbnf(std::string_view text, GrammarAst& ast) {
  EbnfParser p(text, ast);
  return p.Parse();
}

}  // namespace gemmad::constrain::internal
