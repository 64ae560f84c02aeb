// GrammarAst construction helpers and EBNF rendering.
#include "constrain/internal/grammar_ast.h"

#include <fmt/format.h>

#include <algorithm>

namespace gemmad::constrain::internal {

std::vector<CodeRange> NormalizeRanges(std::vector<CodeRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const CodeRange& a, const CodeRange& b) { return a.lo < b.lo; });
  std::vector<CodeRange> out;
  for (const auto& r : ranges) {
    if (r.lo > r.hi) continue;
    if (!out.empty() && r.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<CodeRange> ComplementRanges(const std::vector<CodeRange>& ranges, uint32_t max_value) {
  std::vector<CodeRange> out;
  uint32_t next = 0;
  bool done = false;
  for (const auto& r : ranges) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    if (r.hi >= max_value) {
      done = true;
      break;
    }
    next = r.hi + 1;
  }
  if (!done && next <= max_value) out.push_back({next, max_value});
  return out;
}

ExprId GrammarAst::Add(Expr e) {
  exprs_.push_back(std::move(e));
  return static_cast<ExprId>(exprs_.size() - 1);
}

ExprId GrammarAst::Empty() { return Add({}); }

ExprId GrammarAst::Nothing() {
  Expr e;
  e.kind = ExprKind::kNothing;
  return Add(std::move(e));
}

ExprId GrammarAst::Bytes(std::string_view bytes) {
  if (bytes.empty()) return Empty();
  Expr e;
  e.kind = ExprKind::kBytes;
  e.bytes = std::string(bytes);
  return Add(std::move(e));
}

ExprId GrammarAst::ByteClass(std::vector<CodeRange> ranges) {
  Expr e;
  e.kind = ExprKind::kByteClass;
  for (auto& r : ranges) r.hi = std::min<uint32_t>(r.hi, 255);
  e.ranges = NormalizeRanges(std::move(ranges));
  if (e.ranges.empty()) return Nothing();
  return Add(std::move(e));
}

ExprId GrammarAst::CharClass(std::vector<CodeRange> ranges) {
  Expr e;
  e.kind = ExprKind::kCharClass;
  for (auto& r : ranges) r.hi = std::min<uint32_t>(r.hi, 0x10FFFF);
  e.ranges = NormalizeRanges(std::move(ranges));
  if (e.ranges.empty()) return Nothing();
  return Add(std::move(e));
}

ExprId GrammarAst::Seq(std::vector<ExprId> children) {
  if (children.empty()) return Empty();
  if (children.size() == 1) return children[0];
  Expr e;
  e.kind = ExprKind::kSeq;
  e.children = std::move(children);
  return Add(std::move(e));
}

ExprId GrammarAst::Alt(std::vector<ExprId> children) {
  if (children.empty()) return Nothing();
  if (children.size() == 1) return children[0];
  Expr e;
  e.kind = ExprKind::kAlt;
  e.children = std::move(children);
  return Add(std::move(e));
}

ExprId GrammarAst::Repeat(ExprId child, int32_t min, int32_t max) {
  if (min == 1 && max == 1) return child;
  Expr e;
  e.kind = ExprKind::kRepeat;
  e.children = {child};
  e.min = min;
  e.max = max;
  return Add(std::move(e));
}

ExprId GrammarAst::Ref(int32_t rule) {
  Expr e;
  e.kind = ExprKind::kRuleRef;
  e.ref = rule;
  return Add(std::move(e));
}

ExprId GrammarAst::Token(int32_t token_id) {
  Expr e;
  e.kind = ExprKind::kToken;
  e.ref = token_id;
  return Add(std::move(e));
}

ExprId GrammarAst::Intersect(std::vector<ExprId> children) {
  if (children.size() == 1) return children[0];
  Expr e;
  e.kind = ExprKind::kIntersect;
  e.children = std::move(children);
  return Add(std::move(e));
}

ExprId GrammarAst::Except(ExprId universe, ExprId excluded) {
  Expr e;
  e.kind = ExprKind::kExcept;
  e.children = {universe, excluded};
  return Add(std::move(e));
}

int32_t GrammarAst::AddRule(std::string name) {
  rules_.push_back({std::move(name), -1});
  return static_cast<int32_t>(rules_.size() - 1);
}

int32_t GrammarAst::FindRule(std::string_view name) const {
  for (size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].name == name) return static_cast<int32_t>(i);
  }
  return -1;
}

std::string GrammarAst::FreshName(std::string_view base) const {
  if (FindRule(base) < 0) return std::string(base);
  for (int i = 1;; ++i) {
    std::string n = fmt::format("{}_{}", base, i);
    if (FindRule(n) < 0) return n;
  }
}

namespace {

std::string EscapeCodepoint(uint32_t c, bool in_class) {
  switch (c) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\\': return "\\\\";
    case '"': return in_class ? "\"" : "\\\"";
    case ']': return in_class ? "\\]" : "]";
    case '-': return in_class ? "\\-" : "-";
    case '^': return in_class ? "\\^" : "^";
    default: break;
  }
  if (c < 0x20 || c == 0x7F) return fmt::format("\\x{:02X}", c);
  if (c < 0x80) return std::string(1, static_cast<char>(c));
  if (c <= 0xFFFF) return fmt::format("\\u{:04X}", c);
  return fmt::format("\\U{:08X}", c);
}

std::string PrintRanges(const std::vector<CodeRange>& ranges, bool bytes) {
  std::string out = bytes ? "[" : "[";
  for (const auto& r : ranges) {
    auto one = [&](uint32_t c) {
      return bytes && c >= 0x80 ? fmt::format("\\x{:02X}", c) : EscapeCodepoint(c, true);
    };
    out += one(r.lo);
    if (r.hi != r.lo) out += "-" + one(r.hi);
  }
  return out + "]";
}

}  // namespace

// Precedence: 0 alternation, 1 sequence, 2 repetition, 3 atom.
void GrammarAst::Print(ExprId id, std::string& out, int parent_prec) const {
  const Expr& e = expr(id);
  int prec = 3;
  if (e.kind == ExprKind::kAlt) prec = 0;
  if (e.kind == ExprKind::kSeq || e.kind == ExprKind::kIntersect || e.kind == ExprKind::kExcept) prec = 1;
  if (e.kind == ExprKind::kRepeat) prec = 2;
  bool paren = prec < parent_prec;
  if (paren) out += "(";
  switch (e.kind) {
    case ExprKind::kEmpty: out += "\"\""; break;
    case ExprKind::kNothing: out += "[^\\x00-\\U0010FFFF]"; break;
    case ExprKind::kBytes: {
      out += "\"";
      for (unsigned char c : e.bytes) {
        out += c >= 0x80 ? fmt::format("\\x{:02X}", c) : EscapeCodepoint(c, false);
      }
      out += "\"";
      break;
    }
    case ExprKind::kByteClass: out += "b" + PrintRanges(e.ranges, true); break;
    case ExprKind::kCharClass: out += PrintRanges(e.ranges, false); break;
    case ExprKind::kSeq:
    case ExprKind::kIntersect:
    case ExprKind::kExcept:
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i) out += e.kind == ExprKind::kSeq ? " " : e.kind == ExprKind::kExcept ? " - " : " & ";
        Print(e.children[i], out, 2);
      }
      break;
    case ExprKind::kAlt:
      for (size_t i = 0; i < e.children.size(); ++i) {
        if (i) out += " | ";
        Print(e.children[i], out, 1);
      }
      break;
    case ExprKind::kRepeat:
      Print(e.children[0], out, 3);
      if (e.min == 0 && e.max == 1) {
        out += "?";
      } else if (e.min == 0 && e.max < 0) {
        out += "*";
      } else if (e.min == 1 && e.max < 0) {
        out += "+";
      } else if (e.max < 0) {
        out += fmt::format("{{{},}}", e.min);
      } else if (e.min == e.max) {
        out += fmt::format("{{{}}}", e.min);
      } else {
        out += fmt::format("{{{},{}}}", e.min, e.max);
      }
      break;
    case ExprKind::kRuleRef: out += rules_[static_cast<size_t>(e.ref)].name; break;
    case ExprKind::kToken: out += fmt::format("<[{}]>", e.ref); break;
  }
  if (paren) out += ")";
}

std::string GrammarAst::ToEbnf() const {
  std::string out;
  for (const auto& r : rules_) {
    out += r.name + " ::= ";
    if (r.body >= 0) Print(r.body, out, 0);
    out += "\n";
  }
  return out;
}

}  // namespace gemmad::constrain::internal
