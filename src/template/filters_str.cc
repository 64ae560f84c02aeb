// String and number filters: upper/lower/capitalize/title/trim/replace/indent/truncate/center,
// escape/safe/string, format, tojson (json.dumps(x, ensure_ascii=False, ...) as transformers
// defines it), int/float/abs/round.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "template/filters.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

std::vector<uint32_t> Cps(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t p = 0; p < s.size();) out.push_back(NextCodepoint(s, &p));
  return out;
}

std::string FromCps(const std::vector<uint32_t>& cps, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e && i < cps.size(); ++i) AppendCodepoint(out, cps[i]);
  return out;
}

// Python str.splitlines() (no keepends).
std::vector<std::string> SplitLines(std::string_view s) {
  std::vector<std::string> lines;
  std::vector<uint32_t> cps = Cps(s);
  size_t start = 0;
  for (size_t i = 0; i < cps.size(); ++i) {
    uint32_t c = cps[i];
    bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
               c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!brk) continue;
    lines.push_back(FromCps(cps, start, i));
    if (c == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') ++i;
    start = i + 1;
  }
  if (start < cps.size()) lines.push_back(FromCps(cps, start, cps.size()));
  return lines;
}

}  // namespace

bool ParsePyInt(std::string_view s, int base, int64_t* out) {
  s = PyStrip(s, true, true);
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (base == 0) {
    char p = s.size() > 2 && s[0] == '0' ? static_cast<char>(s[1] | 0x20) : '\0';
    base = p == 'x' ? 16 : (p == 'o' ? 8 : (p == 'b' ? 2 : 10));
  }
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] | 0x20) == 'x') s.remove_prefix(2);
  if (base == 8 && s.size() > 2 && s[0] == '0' && (s[1] | 0x20) == 'o') s.remove_prefix(2);
  if (base == 2 && s.size() > 2 && s[0] == '0' && (s[1] | 0x20) == 'b') s.remove_prefix(2);
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  unsigned __int128 v = 0;
  char prev = '\0';
  for (char c : s) {
    if (c == '_') {
      if (prev == '_') return false;
      prev = c;
      continue;
    }
    int d = (c >= '0' && c <= '9') ? c - '0' : ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ? (c | 0x20) - 'a' + 10 : 99;
    if (d >= base) return false;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (v > static_cast<unsigned __int128>(INT64_MAX) + 1) return false;
    prev = c;
  }
  if (!neg && v > static_cast<unsigned __int128>(INT64_MAX)) return false;
  *out = neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : static_cast<int64_t>(v);
  return true;
}

bool ParsePyFloat(std::string_view s, double* out) {
  s = PyStrip(s, true, true);
  std::string clean;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean.push_back(s[i++]);
  std::string rest(s.substr(i));
  std::string lower;
  for (char c : rest) lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  if (lower == "inf" || lower == "infinity" || lower == "nan") {
    clean += lower == "nan" ? "nan" : "inf";
    *out = std::strtod(clean.c_str(), nullptr);
    return true;
  }
  bool digits = false, dot = false, exp = false;
  char prev = '\0';
  for (size_t k = 0; k < rest.size(); ++k) {
    char c = rest[k];
    if (c >= '0' && c <= '9') {
      digits = true;
    } else if (c == '_') {
      if (!(prev >= '0' && prev <= '9') || k + 1 >= rest.size() || !(rest[k + 1] >= '0' && rest[k + 1] <= '9')) return false;
      prev = c;
      continue;
    } else if (c == '.' && !dot && !exp) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && digits && !exp) {
      exp = true;
      if (k + 1 < rest.size() && (rest[k + 1] == '+' || rest[k + 1] == '-')) clean.push_back(c), c = rest[++k];
      if (k + 1 >= rest.size()) return false;
    } else {
      return false;
    }
    clean.push_back(c);
    prev = c;
  }
  if (!digits || clean.back() == 'e' || clean.back() == 'E') return false;
  *out = std::strtod(clean.c_str(), nullptr);
  return true;
}

Value FUpper(Interp& in, const Value& v, Args& a) { return S(PyUpper(PyStr(v))); }
Value FLower(Interp& in, const Value& v, Args& a) { return S(PyLower(PyStr(v))); }

Value FCapitalize(Interp& in, const Value& v, Args& a) {
  std::string s = PyStr(v), out;
  size_t p = 0;
  if (p < s.size()) AppendUpper(out, NextCodepoint(s, &p));
  while (p < s.size()) AppendLower(out, NextCodepoint(s, &p));
  return S(std::move(out));
}

Value FTitle(Interp& in, const Value& v, Args& a) {
  std::vector<uint32_t> cps = Cps(PyStr(v));
  auto is_sep = [](uint32_t c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || IsSpace(c);
  };
  std::string out;
  size_t i = 0;
  while (i < cps.size()) {
    bool sep = is_sep(cps[i]);
    size_t j = i;
    while (j < cps.size() && is_sep(cps[j]) == sep) ++j;
    AppendUpper(out, cps[i]);
    for (size_t k = i + 1; k < j; ++k) AppendLower(out, cps[k]);
    i = j;
  }
  return S(std::move(out));
}

Value FTrim(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "trim", {"chars"});
  b.Finish();
  std::string s = PyStr(v);
  Value chars = b.Get(0, Value::None());
  if (chars.is_none()) return S(std::string(PyStrip(s, true, true)));
  if (!chars.is_string()) in.Fail("strip arg must be None or str");
  return S(PyStripChars(s, chars.str(), true, true));
}

Value FReplace(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "replace", {"old", "new", "count"});
  b.Finish();
  std::string s = PyStr(v), old_s = PyStr(b.Get(0)), new_s = PyStr(b.Get(1));
  Value count_v = b.Get(2, Value::None());
  int64_t count = -1;
  if (!count_v.is_none()) {
    if (!count_v.is_integral()) in.Fail("'" + std::string(PyTypeName(count_v)) + "' object cannot be interpreted as an integer");
    count = count_v.int_value();
  }
  std::string out;
  if (old_s.empty()) {
    std::vector<uint32_t> cps = Cps(s);
    int64_t done = 0;
    for (size_t i = 0; i <= cps.size(); ++i) {
      if (count < 0 || done < count) {
        out += new_s;
        ++done;
      }
      if (i < cps.size()) AppendCodepoint(out, cps[i]);
      in.CheckSize(out.size());
    }
    return S(std::move(out));
  }
  size_t pos = 0;
  int64_t done = 0;
  while (count < 0 || done < count) {
    size_t hit = s.find(old_s, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out += new_s;
    in.CheckSize(out.size());
    pos = hit + old_s.size();
    ++done;
  }
  out.append(s, pos, std::string::npos);
  return S(std::move(out));
}

Value FString(Interp& in, const Value& v, Args& a) { return S(PyStr(v)); }
Value FSafe(Interp& in, const Value& v, Args& a) { return S(PyStr(v)); }

Value FEscape(Interp& in, const Value& v, Args& a) {
  std::string s = v.is_undefined() ? std::string() : PyStr(v), out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return S(std::move(out));
}

Value FIndent(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "indent", {"width", "first", "blank"});
  b.Finish();
  Value width = b.Get(0, Value::Int(4));
  std::string indention;
  if (width.is_string()) {
    indention = width.str();
  } else if (width.is_integral()) {
    indention.assign(static_cast<size_t>(std::max<int64_t>(0, width.int_value())), ' ');
  } else {
    in.Fail("can't multiply sequence by non-int of type '" + std::string(PyTypeName(width)) + "'");
  }
  bool first = b.Get(1, Value::Bool(false)).Truthy();
  bool blank = b.Get(2, Value::Bool(false)).Truthy();
  std::vector<std::string> lines = SplitLines(PyStr(v) + "\n");
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) rv += "\n" + indention;
      rv += lines[i];
    }
  } else if (!lines.empty()) {
    rv = lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      rv += "\n";
      if (!lines[i].empty()) rv += indention;
      rv += lines[i];
    }
  }
  if (first) rv = indention + rv;
  in.CheckSize(rv.size());
  return S(std::move(rv));
}

Value FTruncate(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "truncate", {"length", "killwords", "end", "leeway"});
  b.Finish();
  std::vector<uint32_t> cps = Cps(PyStr(v));
  Value length_v = b.Get(0, Value::Int(255)), leeway_v = b.Get(3, Value::Int(5));
  if (!length_v.is_number() || !leeway_v.is_number()) in.Fail("truncate: length and leeway must be numbers");
  double length = length_v.as_double(), leeway = leeway_v.as_double();
  bool killwords = b.Get(1, Value::Bool(false)).Truthy();
  std::string end = PyStr(b.Get(2, S("...")));
  int64_t end_len = static_cast<int64_t>(CodepointCount(end));
  if (length < static_cast<double>(end_len)) in.Fail("expected length >= " + std::to_string(end_len));
  if (leeway < 0) in.Fail("expected leeway >= 0");
  if (static_cast<double>(cps.size()) <= length + leeway) return S(FromCps(cps, 0, cps.size()));
  // Python slices s[:length - len(end)], which needs an int.
  int64_t cut = IntArg(in, length_v, "slice index") - end_len;
  std::string head = FromCps(cps, 0, static_cast<size_t>(cut));
  if (killwords) return S(head + end);
  size_t sp = head.rfind(' ');
  if (sp != std::string::npos) head.resize(sp);
  return S(head + end);
}

Value FWordcount(Interp& in, const Value& v, Args& a) {
  std::vector<uint32_t> cps = Cps(PyStr(v));
  int64_t n = 0;
  bool in_word = false;
  for (uint32_t c : cps) {
    bool w = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             c == '_' || (c >= 0x80 && !IsSpace(c) && IsPrintable(c));
    if (w && !in_word) ++n;
    in_word = w;
  }
  return Value::Int(n);
}

Value FCenter(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "center", {"width"});
  b.Finish();
  std::string s = PyStr(v);
  int64_t width = IntArg(in, b.Get(0, Value::Int(80)), "width");
  int64_t len = static_cast<int64_t>(CodepointCount(s));
  if (width <= len) return S(s);
  in.CheckSize(static_cast<size_t>(width));
  int64_t marg = width - len;
  int64_t left = marg / 2 + (marg & width & 1);
  return S(std::string(static_cast<size_t>(left), ' ') + s +
           std::string(static_cast<size_t>(marg - left), ' '));
}

Value FFormat(Interp& in, const Value& v, Args& a) {
  if (!a.pos.empty() && !a.kw.empty()) in.Fail("can't handle positional and keyword arguments at the same time");
  if (!a.kw.empty()) {
    std::vector<std::pair<Value, Value>> entries;
    for (auto& [k, val] : a.kw) entries.emplace_back(S(k), val);
    return S(in.PercentFormat(PyStr(v), Value::Dict(std::move(entries))));
  }
  return S(in.PercentFormat(PyStr(v), Value::Tuple(a.pos)));
}

Value FTojson(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "tojson", {"ensure_ascii", "indent", "separators", "sort_keys"});
  b.Finish();
  JsonDumpOptions opt;
  opt.ensure_ascii = b.Get(0, Value::Bool(false)).Truthy();
  Value indent = b.Get(1, Value::None());
  if (indent.is_string()) {
    opt.indent = indent.str();
  } else if (indent.is_integral()) {
    opt.indent = std::string(static_cast<size_t>(std::max<int64_t>(0, indent.int_value())), ' ');
  } else if (!indent.is_none()) {
    in.Fail("tojson: indent must be an int or a string");
  }
  if (opt.indent) opt.item_separator = ",";
  Value seps = b.Get(2, Value::None());
  if (!seps.is_none()) {
    std::vector<Value> parts = in.Iterate(seps);
    if (parts.size() != 2 || !parts[0].is_string() || !parts[1].is_string()) {
      in.Fail("tojson: separators must be a pair of strings");
    }
    opt.item_separator = parts[0].str();
    opt.key_separator = parts[1].str();
  }
  opt.sort_keys = b.Get(3, Value::Bool(false)).Truthy();
  std::string out, error;
  if (!JsonDumps(v, opt, &out, &error)) in.Fail(error);
  in.CheckSize(out.size());
  return S(std::move(out));
}

Value FInt(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "int", {"default", "base"});
  b.Finish();
  Value dflt = b.Get(0, Value::Int(0));
  // An invalid base makes Python's int() raise ValueError, which the filter swallows.
  int64_t base_arg = IntArg(in, b.Get(1, Value::Int(10)), "base");
  int base = (base_arg == 0 || (base_arg >= 2 && base_arg <= 36)) ? static_cast<int>(base_arg) : -1;
  if (v.is_undefined()) in.FailUndefined(v);
  if (v.is_integral()) return Value::Int(v.int_value());
  if (v.type() == Type::kFloat) {
    double d = v.float_value();
    if (std::isnan(d)) return dflt;
    if (std::isinf(d)) in.Fail("cannot convert float infinity to integer");
    if (std::fabs(d) >= 9.2e18) in.Fail("integer overflow");
    return Value::Int(static_cast<int64_t>(d));
  }
  if (v.is_string()) {
    int64_t i;
    if (base >= 0 && ParsePyInt(v.str(), base, &i)) return Value::Int(i);
    double d;
    if (ParsePyFloat(v.str(), &d)) {
      if (std::isnan(d)) return dflt;
      if (std::isinf(d)) in.Fail("cannot convert float infinity to integer");
      if (std::fabs(d) >= 9.2e18) in.Fail("integer overflow");
      return Value::Int(static_cast<int64_t>(d));
    }
  }
  return dflt;
}

Value FFloat(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "float", {"default"});
  b.Finish();
  Value dflt = b.Get(0, Value::Float(0.0));
  if (v.is_undefined()) in.FailUndefined(v);
  if (v.is_number()) return Value::Float(v.as_double());
  double d;
  if (v.is_string() && ParsePyFloat(v.str(), &d)) return Value::Float(d);
  return dflt;
}

Value FAbs(Interp& in, const Value& v, Args& a) {
  if (v.is_undefined()) in.FailUndefined(v);
  if (v.type() == Type::kFloat) return Value::Float(std::fabs(v.float_value()));
  if (v.is_integral()) {
    if (v.int_value() == INT64_MIN) in.Fail("integer overflow");
    return Value::Int(v.int_value() < 0 ? -v.int_value() : v.int_value());
  }
  in.Fail("bad operand type for abs(): '" + std::string(PyTypeName(v)) + "'");
}

Value FRound(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "round", {"precision", "method"});
  b.Finish();
  Value prec_v = b.Get(0, Value::Int(0));
  std::string method = PyStr(b.Get(1, S("common")));
  if (method != "common" && method != "ceil" && method != "floor") {
    in.Fail("method must be common, ceil or floor");
  }
  if (v.is_undefined()) in.FailUndefined(v);
  if (!v.is_number()) in.Fail("type " + std::string(PyTypeName(v)) + " doesn't define __round__ method");
  if (!prec_v.is_integral()) in.Fail("'" + std::string(PyTypeName(prec_v)) + "' object cannot be interpreted as an integer");
  int64_t prec = prec_v.int_value();
  double scale = std::pow(10.0, static_cast<double>(prec));
  if (method != "common") {
    double x = v.as_double() * scale;
    return Value::Float((method == "ceil" ? std::ceil(x) : std::floor(x)) / scale);
  }
  if (v.is_integral()) {
    if (prec >= 0) return Value::Int(v.int_value());
    double r = std::nearbyint(static_cast<double>(v.int_value()) / std::pow(10.0, -prec));
    return Value::Int(static_cast<int64_t>(r * std::pow(10.0, -prec)));
  }
  double x = v.float_value();
  if (!std::isfinite(x)) return Value::Float(x);
  if (prec < 0) return Value::Float(std::nearbyint(x / std::pow(10.0, -prec)) * std::pow(10.0, -prec));
  if (prec > 400) return Value::Float(x);  // beyond any double's decimal expansion
  int n = std::snprintf(nullptr, 0, "%.*f", static_cast<int>(prec), x);
  std::string buf(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(buf.data(), buf.size(), "%.*f", static_cast<int>(prec), x);
  return Value::Float(std::strtod(buf.c_str(), nullptr));
}

}  // namespace gemmad::tmpl::internal
