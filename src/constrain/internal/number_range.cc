// Integer and decimal range expressions (number_range.h).
#include "constrain/internal/number_range.h"

#include <algorithm>

namespace gemmad::constrain::internal {
namespace {

// Magnitudes as digit strings without leading zeros ("0" for zero).
int Cmp(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}
std::string Inc(std::string a) {
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != '9') {
      ++a[i];
      return a;
    }
    a[i] = '0';
  }
  return "1" + a;
}
std::string Dec(std::string a) {  // a > 0
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != '0') {
      --a[i];
      break;
    }
    a[i] = '9';
  }
  size_t nz = a.find_first_not_of('0');
  return nz == std::string::npos ? "0" : a.substr(nz);
}
bool All(const std::string& s, char c) { return s.find_first_not_of(c) == std::string::npos; }

ExprId Digits(GrammarAst& ast, char lo, char hi) {
  return ast.ByteClass({{static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)}});
}
ExprId AnyDigits(GrammarAst& ast, int32_t n) { return ast.Repeat(Digits(ast, '0', '9'), n, n); }

ExprId GreaterEq(GrammarAst& ast, const std::string& s) {  // same length, >= s
  if (s.empty()) return ast.Empty();
  if (All(s, '0')) return AnyDigits(ast, static_cast<int32_t>(s.size()));
  const auto rest = static_cast<int32_t>(s.size() - 1);
  std::vector<ExprId> alts = {ast.Seq({ast.Bytes(s.substr(0, 1)), GreaterEq(ast, s.substr(1))})};
  if (s[0] < '9') alts.push_back(ast.Seq({Digits(ast, static_cast<char>(s[0] + 1), '9'), AnyDigits(ast, rest)}));
  return ast.Alt(std::move(alts));
}

ExprId LessEq(GrammarAst& ast, const std::string& s) {  // same length, <= s
  if (s.empty()) return ast.Empty();
  if (All(s, '9')) return AnyDigits(ast, static_cast<int32_t>(s.size()));
  const auto rest = static_cast<int32_t>(s.size() - 1);
  std::vector<ExprId> alts = {ast.Seq({ast.Bytes(s.substr(0, 1)), LessEq(ast, s.substr(1))})};
  if (s[0] > '0') alts.push_back(ast.Seq({Digits(ast, '0', static_cast<char>(s[0] - 1)), AnyDigits(ast, rest)}));
  return ast.Alt(std::move(alts));
}

ExprId SameLength(GrammarAst& ast, const std::string& x, const std::string& y) {
  if (x.empty()) return ast.Empty();
  if (x[0] == y[0]) return ast.Seq({ast.Bytes(x.substr(0, 1)), SameLength(ast, x.substr(1), y.substr(1))});
  const auto rest = static_cast<int32_t>(x.size() - 1);
  if (All(x.substr(1), '0') && All(y.substr(1), '9')) return ast.Seq({Digits(ast, x[0], y[0]), AnyDigits(ast, rest)});
  std::vector<ExprId> alts = {ast.Seq({ast.Bytes(x.substr(0, 1)), GreaterEq(ast, x.substr(1))})};
  if (x[0] + 1 <= y[0] - 1) {
    alts.push_back(ast.Seq({Digits(ast, static_cast<char>(x[0] + 1), static_cast<char>(y[0] - 1)), AnyDigits(ast, rest)}));
  }
  alts.push_back(ast.Seq({ast.Bytes(y.substr(0, 1)), LessEq(ast, y.substr(1))}));
  return ast.Alt(std::move(alts));
}

// Canonical unsigned integer texts in [lo, hi] (hi nullopt: unbounded).
ExprId UIntRange(GrammarAst& ast, const std::string& lo, const std::optional<std::string>& hi) {
  if (hi && Cmp(lo, *hi) > 0) return ast.Nothing();
  std::vector<ExprId> alts;
  const size_t last = hi ? hi->size() : lo.size();
  for (size_t n = lo.size(); n <= last; ++n) {
    std::string a = n == lo.size() ? lo : "1" + std::string(n - 1, '0');
    std::string b = (hi && n == hi->size()) ? *hi : std::string(n, '9');
    alts.push_back(SameLength(ast, a, b));
  }
  if (!hi) {
    alts.push_back(ast.Seq({Digits(ast, '1', '9'), ast.Repeat(Digits(ast, '0', '9'), static_cast<int32_t>(lo.size()), -1)}));
  }
  return ast.Alt(std::move(alts));
}

struct Signed {
  bool negative = false;
  std::string mag = "0";
};
Signed Plus1(Signed v) {
  if (!v.negative) return {false, Inc(v.mag)};
  std::string m = Dec(v.mag);
  return {m != "0", m};
}
Signed Minus1(Signed v) {
  if (v.negative) return {true, Inc(v.mag)};
  if (v.mag == "0") return {true, "1"};
  return {false, Dec(v.mag)};
}
int CmpSigned(const Signed& a, const Signed& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int c = Cmp(a.mag, b.mag);
  return a.negative ? -c : c;
}
// Smallest integer >= x (> x when exclusive).
Signed LowInt(const NumberBound& b) {
  Signed v{b.value.negative && b.value.int_digits != "0" ? true : false, b.value.int_digits};
  const bool frac = !b.value.frac_digits.empty();
  if (b.value.negative) {
    v.negative = true;
    // ceil(-m.f) = -m when frac; -m exactly otherwise.
    if (v.mag == "0") v.negative = false;
    if (!frac && b.exclusive) v = Plus1(v);
  } else if (frac || b.exclusive) {
    v = Plus1(v);
  }
  return v;
}
// Largest integer <= x (< x when exclusive).
Signed HighInt(const NumberBound& b) {
  Signed v{b.value.negative, b.value.int_digits};
  if (v.mag == "0") v.negative = false;
  const bool frac = !b.value.frac_digits.empty();
  if (b.value.negative) {
    if (frac || b.exclusive) v = Minus1(v);
  } else if (!frac && b.exclusive) {
    v = Minus1(v);
  }
  return v;
}

// Fraction digit strings F (possibly empty) with 0.F >= 0.f (> when strict).
ExprId FracGreater(GrammarAst& ast, const std::string& f, bool strict) {
  if (f.empty()) {
    if (!strict) return ast.Star(Digits(ast, '0', '9'));
    return ast.Seq({ast.Star(ast.Bytes("0")), Digits(ast, '1', '9'), ast.Star(Digits(ast, '0', '9'))});
  }
  std::vector<ExprId> alts = {ast.Seq({ast.Bytes(f.substr(0, 1)), FracGreater(ast, f.substr(1), strict)})};
  if (f[0] < '9') alts.push_back(ast.Seq({Digits(ast, static_cast<char>(f[0] + 1), '9'), ast.Star(Digits(ast, '0', '9'))}));
  return ast.Alt(std::move(alts));
}
// Fraction digit strings F with 0.F <= 0.f (< when strict).
ExprId FracLess(GrammarAst& ast, const std::string& f, bool strict) {
  if (f.empty()) return strict ? ast.Nothing() : ast.Star(ast.Bytes("0"));
  std::vector<ExprId> alts = {ast.Empty(), ast.Seq({ast.Bytes(f.substr(0, 1)), FracLess(ast, f.substr(1), strict)})};
  if (f[0] > '0') alts.push_back(ast.Seq({Digits(ast, '0', static_cast<char>(f[0] - 1)), ast.Star(Digits(ast, '0', '9'))}));
  return ast.Alt(std::move(alts));
}
// "" or "." followed by a non-empty fraction in `frac` (a language over digit strings).
ExprId Fraction(GrammarAst& ast, ExprId frac, bool allow_none) {
  ExprId dotted = ast.Seq({ast.Bytes("."), ast.Intersect({frac, ast.Plus(Digits(ast, '0', '9'))})});
  return allow_none ? ast.Alt({ast.Empty(), dotted}) : dotted;
}

// Unsigned decimals x with lo <= x <= hi (strictness per bound; hi nullopt: unbounded).
ExprId UDecRange(GrammarAst& ast, const Decimal& lo, bool lo_strict, const std::optional<Decimal>& hi, bool hi_strict) {
  const bool lo_none = lo.frac_digits.empty() && !lo_strict;  // "no fraction" satisfies the low bound
  if (hi) {
    int ci = Cmp(lo.int_digits, hi->int_digits);
    if (ci > 0) return ast.Nothing();
    if (ci == 0) {
      ExprId f = ast.Intersect({FracGreater(ast, lo.frac_digits, lo_strict), FracLess(ast, hi->frac_digits, hi_strict)});
      const bool none = lo_none && !(hi->frac_digits.empty() && hi_strict);
      return ast.Seq({ast.Bytes(lo.int_digits), Fraction(ast, f, none)});
    }
  }
  std::vector<ExprId> alts;
  alts.push_back(ast.Seq({ast.Bytes(lo.int_digits), Fraction(ast, FracGreater(ast, lo.frac_digits, lo_strict), lo_none)}));
  const std::string mid_lo = Inc(lo.int_digits);
  const ExprId any_frac = ast.Optional(ast.Seq({ast.Bytes("."), ast.Plus(Digits(ast, '0', '9'))}));
  if (!hi) {
    alts.push_back(ast.Seq({UIntRange(ast, mid_lo, std::nullopt), any_frac}));
  } else if (const std::string mid_hi = Dec(hi->int_digits); Cmp(mid_lo, mid_hi) <= 0) {
    alts.push_back(ast.Seq({UIntRange(ast, mid_lo, mid_hi), any_frac}));
  }
  if (hi) {
    const bool none = !(hi->frac_digits.empty() && hi_strict);
    alts.push_back(ast.Seq({ast.Bytes(hi->int_digits), Fraction(ast, FracLess(ast, hi->frac_digits, hi_strict), none)}));
  }
  return ast.Alt(std::move(alts));
}

bool IsNegative(const Decimal& d) { return d.negative && (d.int_digits != "0" || !d.frac_digits.empty()); }
bool IsZero(const Decimal& d) { return d.int_digits == "0" && d.frac_digits.empty(); }

}  // namespace

ExprId IntegerRangeExpr(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi, GrammarAst& ast) {
  std::optional<Signed> a, b;
  if (lo) a = LowInt(*lo);
  if (hi) b = HighInt(*hi);
  if (a && b && CmpSigned(*a, *b) > 0) return ast.Nothing();
  std::vector<ExprId> alts;
  // Non-negative part: [max(a, 0), b].
  if (!b || !b->negative) {
    std::string from = (!a || a->negative) ? "0" : a->mag;
    std::optional<std::string> to;
    if (b) to = b->mag;
    alts.push_back(UIntRange(ast, from, to));
  }
  // Negative part: magnitudes [max(1, -b), -a].
  if (!a || a->negative) {
    std::string from = (b && b->negative) ? b->mag : "1";
    std::optional<std::string> to;
    if (a) to = a->mag;
    alts.push_back(ast.Seq({ast.Bytes("-"), UIntRange(ast, from, to)}));
  }
  return ast.Alt(std::move(alts));
}

ExprId DecimalRangeExpr(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi, GrammarAst& ast) {
  std::vector<ExprId> alts;
  // Non-negative part.
  if (!hi || !IsNegative(hi->value)) {
    if (!(hi && IsZero(hi->value) && hi->exclusive)) {
      Decimal from;
      bool from_strict = false;
      if (lo && !IsNegative(lo->value)) {
        from = lo->value;
        from.negative = false;
        from_strict = lo->exclusive;
      }
      std::optional<Decimal> to;
      if (hi) to = hi->value;
      alts.push_back(UDecRange(ast, from, from_strict, to, hi && hi->exclusive));
    }
  }
  // Negative part: magnitudes y with max(-hi, 0) < or <= y <= or < -lo.
  if (!lo || IsNegative(lo->value)) {
    Decimal from;
    bool from_strict = true;  // never "-0"
    if (hi && IsNegative(hi->value)) {
      from = hi->value;
      from_strict = hi->exclusive;
    }
    from.negative = false;
    std::optional<Decimal> to;
    if (lo) {
      to = lo->value;
      to->negative = false;
    }
    alts.push_back(ast.Seq({ast.Bytes("-"), UDecRange(ast, from, from_strict, to, lo && lo->exclusive)}));
  }
  return ast.Alt(std::move(alts));
}

}  // namespace gemmad::constrain::internal
