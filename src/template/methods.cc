// Methods callable on values, as the immutable sandbox allows them: str methods (strip, split,
// startswith, replace, format, ...), dict.items/keys/values/get/copy, list/tuple index/count,
// loop.cycle/changed. Mutating methods are not methods here (they resolve to an unsafe
// Undefined in ops.cc and fail when called).
#include <algorithm>

#include "template/filters.h"
#include "template/interp.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {

std::string StrFormat(Interp& in, const std::string& fmt, Args& args);  // str_format.cc

namespace {

const char* const kStrMethods[] = {
    "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines", "startswith", "endswith",
    "upper", "lower", "title", "capitalize", "swapcase", "casefold", "replace", "find", "rfind",
    "index", "rindex", "count", "join", "format", "isdigit", "isdecimal", "isnumeric", "isalpha",
    "isalnum", "isspace", "islower", "isupper", "istitle", "zfill", "ljust", "rjust", "center",
    "partition", "rpartition", "removeprefix", "removesuffix"};
const char* const kDictMethods[] = {"items", "keys", "values", "get", "copy"};
const char* const kSeqMethods[] = {"index", "count"};

bool In(const char* const* table, size_t n, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    if (name == table[i]) return true;
  }
  return false;
}

std::vector<uint32_t> Cps(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t p = 0; p < s.size();) out.push_back(NextCodepoint(s, &p));
  return out;
}

std::string Utf8(const std::vector<uint32_t>& cps, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e; ++i) AppendCodepoint(out, cps[i]);
  return out;
}

const std::string& NeedStr(Interp& in, const Value& v, const char* what) {
  if (!v.is_string()) {
    in.Fail(std::string(what) + " must be str, not " + std::string(PyTypeName(v)));
  }
  return v.str();
}

// Python str.split / rsplit.
Value Split(Interp& in, const std::string& s, Args& a, bool right) {
  ArgBinder b(in, a, right ? "rsplit" : "split", {"sep", "maxsplit"});
  b.Finish();
  Value sep_v = b.Get(0, Value::None());
  int64_t maxsplit = IntArg(in, b.Get(1, Value::Int(-1)), "maxsplit");
  std::vector<Value> parts;
  if (sep_v.is_none()) {
    std::vector<uint32_t> cps = Cps(s);
    std::vector<std::pair<size_t, size_t>> words;
    size_t i = 0;
    while (i < cps.size()) {
      while (i < cps.size() && IsSpace(cps[i])) ++i;
      if (i >= cps.size()) break;
      size_t j = i;
      while (j < cps.size() && !IsSpace(cps[j])) ++j;
      words.emplace_back(i, j);
      i = j;
    }
    if (maxsplit < 0 || static_cast<size_t>(maxsplit) >= words.size()) {
      for (auto& w : words) parts.push_back(S(Utf8(cps, w.first, w.second)));
      return Value::List(std::move(parts));
    }
    size_t m = static_cast<size_t>(maxsplit);
    if (!right) {
      // Python keeps the remainder's trailing whitespace.
      for (size_t k = 0; k < m; ++k) parts.push_back(S(Utf8(cps, words[k].first, words[k].second)));
      parts.push_back(S(Utf8(cps, words[m].first, cps.size())));
    } else {
      // ... and, from the right, the remainder's leading whitespace.
      size_t first = words.size() - m;
      parts.push_back(S(Utf8(cps, 0, words[first - 1].second)));
      for (size_t k = first; k < words.size(); ++k) parts.push_back(S(Utf8(cps, words[k].first, words[k].second)));
    }
    return Value::List(std::move(parts));
  }
  const std::string& sep = NeedStr(in, sep_v, "sep");
  if (sep.empty()) in.Fail("empty separator");
  std::vector<std::string> pieces;
  if (!right) {
    size_t pos = 0;
    while (maxsplit < 0 || static_cast<int64_t>(pieces.size()) < maxsplit) {
      size_t hit = s.find(sep, pos);
      if (hit == std::string::npos) break;
      pieces.push_back(s.substr(pos, hit - pos));
      pos = hit + sep.size();
    }
    pieces.push_back(s.substr(pos));
  } else {
    size_t end = s.size();
    std::vector<std::string> rev;
    while (maxsplit < 0 || static_cast<int64_t>(rev.size()) < maxsplit) {
      if (end < sep.size()) break;
      size_t hit = s.rfind(sep, end - sep.size());
      if (hit == std::string::npos) break;
      rev.push_back(s.substr(hit + sep.size(), end - hit - sep.size()));
      end = hit;
    }
    rev.push_back(s.substr(0, end));
    pieces.assign(rev.rbegin(), rev.rend());
  }
  for (auto& p : pieces) parts.push_back(S(std::move(p)));
  return Value::List(std::move(parts));
}

bool AffixMatch(Interp& in, const std::string& s, const Value& affix, bool prefix) {
  auto one = [&](const Value& v) {
    const std::string& a = NeedStr(in, v, prefix ? "startswith first arg" : "endswith first arg");
    if (a.size() > s.size()) return false;
    return prefix ? s.compare(0, a.size(), a) == 0 : s.compare(s.size() - a.size(), a.size(), a) == 0;
  };
  if (affix.is_list() && affix.seq_kind() == SeqKind::kTuple) {
    for (const auto& v : affix.list().items) {
      if (one(v)) return true;
    }
    return false;
  }
  return one(affix);
}

// find/rfind/index/rindex/count over code points.
Value Search(Interp& in, const std::string& s, const std::string& name, Args& a) {
  if (a.pos.empty()) in.Fail(name + "() takes at least 1 argument (0 given)");
  const std::string& sub = NeedStr(in, a.pos[0], "substring");
  std::vector<uint32_t> hay = Cps(s), needle = Cps(sub);
  int64_t n = static_cast<int64_t>(hay.size());
  auto idx = [&](size_t k, int64_t dflt) {
    if (a.pos.size() <= k || a.pos[k].is_none()) return dflt;
    int64_t i = IntArg(in, a.pos[k], "slice index");
    if (i < 0) i = std::max<int64_t>(0, i + n);
    return std::min(i, n);
  };
  int64_t start = idx(1, 0), end = idx(2, n);
  int64_t m = static_cast<int64_t>(needle.size());
  if (name == "count") {
    int64_t c = 0;
    if (m == 0) return Value::Int(std::max<int64_t>(0, end - start + 1));
    for (int64_t i = start; i + m <= end;) {
      if (std::equal(needle.begin(), needle.end(), hay.begin() + i)) {
        ++c;
        i += m;
      } else {
        ++i;
      }
    }
    return Value::Int(c);
  }
  bool from_right = name == "rfind" || name == "rindex";
  int64_t found = -1;
  if (end - start >= m) {
    if (!from_right) {
      for (int64_t i = start; i + m <= end; ++i) {
        if (std::equal(needle.begin(), needle.end(), hay.begin() + i)) {
          found = i;
          break;
        }
      }
    } else {
      for (int64_t i = end - m; i >= start; --i) {
        if (std::equal(needle.begin(), needle.end(), hay.begin() + i)) {
          found = i;
          break;
        }
      }
    }
  }
  if (found < 0 && (name == "index" || name == "rindex")) in.Fail("substring not found");
  return Value::Int(found);
}

Value Pad(Interp& in, const std::string& s, const std::string& name, Args& a) {
  ArgBinder b(in, a, name, {"width", "fillchar"});
  b.Finish();
  int64_t width = IntArg(in, b.Get(0), "width");
  std::string fill = PyStr(b.Get(1, S(" ")));
  if (CodepointCount(fill) != 1) in.Fail("The fill character must be exactly one character long");
  int64_t len = static_cast<int64_t>(CodepointCount(s));
  if (width <= len) return S(s);
  in.CheckSize(static_cast<size_t>(width) * fill.size());
  int64_t marg = width - len, left = 0;
  if (name == "rjust") left = marg;
  if (name == "center") left = marg / 2 + (marg & width & 1);
  std::string out;
  for (int64_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (int64_t i = 0; i < marg - left; ++i) out += fill;
  return S(std::move(out));
}

bool AllCps(const std::string& s, bool (*pred)(uint32_t)) {
  if (s.empty()) return false;
  for (size_t p = 0; p < s.size();) {
    if (!pred(NextCodepoint(s, &p))) return false;
  }
  return true;
}
bool IsDigitCp(uint32_t c) { return c >= '0' && c <= '9'; }
bool IsAlphaCp(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= 0x80 && (IsCased(c) || (c >= 0x3040 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7A3)));
}
bool IsAlnumCp(uint32_t c) { return IsDigitCp(c) || IsAlphaCp(c); }

Value StrMethod(Interp& in, const std::string& s, const std::string& name, Args& a) {
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    ArgBinder b(in, a, name, {"chars"});
    b.Finish();
    Value chars = b.Get(0, Value::None());
    bool left = name != "rstrip", right = name != "lstrip";
    if (chars.is_none()) return S(std::string(PyStrip(s, left, right)));
    return S(PyStripChars(s, NeedStr(in, chars, "strip arg"), left, right));
  }
  if (name == "split" || name == "rsplit") return Split(in, s, a, name == "rsplit");
  if (name == "splitlines") {
    std::vector<Value> out;
    std::vector<uint32_t> cps = Cps(s);
    size_t start = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
      uint32_t c = cps[i];
      if (!(c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) ||
            c == 0x85 || c == 0x2028 || c == 0x2029)) {
        continue;
      }
      out.push_back(S(Utf8(cps, start, i)));
      if (c == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') ++i;
      start = i + 1;
    }
    if (start < cps.size()) out.push_back(S(Utf8(cps, start, cps.size())));
    return Value::List(std::move(out));
  }
  if (name == "startswith" || name == "endswith") {
    if (a.pos.empty()) in.Fail(name + "() takes at least 1 argument (0 given)");
    return Value::Bool(AffixMatch(in, s, a.pos[0], name == "startswith"));
  }
  if (name == "upper") return S(PyUpper(s));
  if (name == "lower" || name == "casefold") return S(PyLower(s));
  if (name == "capitalize") return in.ApplyFilterByName("capitalize", S(s), a);
  if (name == "swapcase") {
    std::string out;
    for (size_t p = 0; p < s.size();) {
      uint32_t c = NextCodepoint(s, &p);
      if (IsLowerCp(c)) {
        AppendUpper(out, c);
      } else {
        AppendLower(out, c);
      }
    }
    return S(std::move(out));
  }
  if (name == "title") {
    std::string out;
    bool prev_cased = false;
    for (size_t p = 0; p < s.size();) {
      uint32_t c = NextCodepoint(s, &p);
      if (prev_cased) {
        AppendLower(out, c);
      } else {
        AppendUpper(out, c);
      }
      prev_cased = IsCased(c);
    }
    return S(std::move(out));
  }
  if (name == "replace") {
    ArgBinder b(in, a, "replace", {"old", "new", "count"});
    b.Finish();
    NeedStr(in, b.Get(0), "replace() argument 1");
    NeedStr(in, b.Get(1), "replace() argument 2");
    Args fa;
    fa.pos = {b.Get(0), b.Get(1)};
    if (b.Has(2)) fa.pos.push_back(b.Get(2));
    return in.ApplyFilterByName("replace", S(s), fa);
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
    return Search(in, s, name, a);
  }
  if (name == "join") {
    if (a.pos.size() != 1) in.Fail("join() takes exactly one argument");
    std::string out;
    std::vector<Value> items = in.Iterate(a.pos[0]);
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        in.Fail("sequence item " + std::to_string(i) + ": expected str instance, " +
                std::string(PyTypeName(items[i])) + " found");
      }
      if (i > 0) out += s;
      out += items[i].str();
      in.CheckSize(out.size());
    }
    return S(std::move(out));
  }
  if (name == "format") return S(StrFormat(in, s, a));
  if (name == "isdigit" || name == "isdecimal" || name == "isnumeric") return Value::Bool(AllCps(s, IsDigitCp));
  if (name == "isalpha") return Value::Bool(AllCps(s, IsAlphaCp));
  if (name == "isalnum") return Value::Bool(AllCps(s, IsAlnumCp));
  if (name == "isspace") return Value::Bool(AllCps(s, IsSpace));
  if (name == "islower" || name == "isupper") {
    Args none;
    return Value::Bool(in.ApplyTestByName(name == "islower" ? "lower" : "upper", S(s), none));
  }
  if (name == "istitle") {
    Args none;
    return Value::Bool(!s.empty() && StrMethod(in, s, "title", none).str() == s &&
                       std::any_of(s.begin(), s.end(), [](char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }));
  }
  if (name == "zfill") {
    ArgBinder b(in, a, "zfill", {"width"});
    b.Finish();
    int64_t width = IntArg(in, b.Get(0), "width");
    int64_t len = static_cast<int64_t>(CodepointCount(s));
    if (width <= len) return S(s);
    in.CheckSize(static_cast<size_t>(width));
    std::string zeros(static_cast<size_t>(width - len), '0');
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) return S(s.substr(0, 1) + zeros + s.substr(1));
    return S(zeros + s);
  }
  if (name == "ljust" || name == "rjust" || name == "center") return Pad(in, s, name, a);
  if (name == "partition" || name == "rpartition") {
    if (a.pos.size() != 1) in.Fail(name + "() takes exactly one argument");
    const std::string& sep = NeedStr(in, a.pos[0], "separator");
    if (sep.empty()) in.Fail("empty separator");
    size_t hit = name == "partition" ? s.find(sep) : s.rfind(sep);
    if (hit == std::string::npos) {
      return name == "partition" ? Value::Tuple({S(s), S(""), S("")}) : Value::Tuple({S(""), S(""), S(s)});
    }
    return Value::Tuple({S(s.substr(0, hit)), S(sep), S(s.substr(hit + sep.size()))});
  }
  if (name == "removeprefix" || name == "removesuffix") {
    if (a.pos.size() != 1) in.Fail(name + "() takes exactly one argument");
    const std::string& x = NeedStr(in, a.pos[0], name.c_str());
    if (name == "removeprefix") return S(s.compare(0, x.size(), x) == 0 ? s.substr(x.size()) : s);
    if (x.size() <= s.size() && s.compare(s.size() - x.size(), x.size(), x) == 0 && !x.empty()) {
      return S(s.substr(0, s.size() - x.size()));
    }
    return S(s);
  }
  in.Fail("'str' object has no attribute '" + name + "'");
}

Value DictMethod(Interp& in, const Value& self, const std::string& name, Args& a) {
  const DictObj& d = self.dict();
  if (name == "get") {
    if (a.pos.empty() || a.pos.size() > 2 || !a.kw.empty()) in.Fail("get expected 1 or 2 positional arguments");
    if (const Value* v = d.Find(a.pos[0])) return *v;
    return a.pos.size() == 2 ? a.pos[1] : Value::None();
  }
  if (!a.pos.empty() || !a.kw.empty()) in.Fail("dict." + name + "() takes no arguments");
  if (name == "copy") return Value::Dict(d.entries);
  std::vector<Value> out;
  out.reserve(d.entries.size());
  for (const auto& [k, v] : d.entries) {
    if (name == "items") {
      out.push_back(Value::Tuple({k, v}));
    } else {
      out.push_back(name == "keys" ? k : v);
    }
  }
  SeqKind kind = name == "items" ? SeqKind::kDictItems
                                 : (name == "keys" ? SeqKind::kDictKeys : SeqKind::kDictValues);
  return Value::List(std::move(out), kind);
}

Value SeqMethod(Interp& in, const Value& self, const std::string& name, Args& a) {
  const auto& items = self.list().items;
  if (a.pos.empty()) in.Fail(name + "() takes at least 1 argument (0 given)");
  if (name == "count") {
    int64_t c = 0;
    for (const auto& x : items) c += PyEquals(x, a.pos[0]) ? 1 : 0;
    return Value::Int(c);
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (PyEquals(items[i], a.pos[0])) return Value::Int(static_cast<int64_t>(i));
  }
  in.Fail(PyStr(a.pos[0]) + " is not in list");
}

Value LoopMethod(Interp& in, const Value& self, const std::string& name, Args& a) {
  LoopObj& l = self.loop();
  if (name == "cycle") {
    if (a.pos.empty()) in.Fail("no items for cycling given");
    return a.pos[l.index0 % a.pos.size()];
  }
  Value current = Value::List(a.pos);
  if (l.has_last_changed && PyEquals(l.last_changed, current)) return Value::Bool(false);
  l.last_changed = current;
  l.has_last_changed = true;
  return Value::Bool(true);
}

}  // namespace

bool Interp::HasMethod(const Value& self, const std::string& name) const {
  switch (self.type()) {
    case Type::kString:
      return In(kStrMethods, std::size(kStrMethods), name);
    case Type::kDict:
      return In(kDictMethods, std::size(kDictMethods), name);
    case Type::kList: {
      SeqKind k = self.seq_kind();
      if (k != SeqKind::kList && k != SeqKind::kTuple && k != SeqKind::kRange) return false;
      return In(kSeqMethods, std::size(kSeqMethods), name);
    }
    case Type::kLoop:
      return name == "cycle" || name == "changed";
    default:
      return false;
  }
}

Value Interp::CallMethod(const Value& self, const std::string& name, Args& args) {
  switch (self.type()) {
    case Type::kString: return StrMethod(*this, self.str(), name, args);
    case Type::kDict: return DictMethod(*this, self, name, args);
    case Type::kList: return SeqMethod(*this, self, name, args);
    case Type::kLoop: return LoopMethod(*this, self, name, args);
    default: Fail("'" + std::string(PyTypeName(self)) + "' object has no attribute '" + name + "'");
  }
}

}  // namespace gemmad::tmpl::internal
