// Name tables for filters, tests and globals, Python-style argument binding, the tests (`is`),
// and the global functions (range, dict, namespace, raise_exception, strftime_now).
#include "template/builtins.h"

#include <algorithm>
#include <ctime>

#include "template/interp.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {

// Defined in filters.cc / filters_seq.cc.
extern const std::pair<const char*, FilterFn> kFilterTable[];
extern const size_t kFilterTableSize;

ArgBinder::ArgBinder(Interp& in, Args& args, std::string_view fn,
                     std::vector<std::string_view> params)
    : in_(in), args_(args), fn_(fn), params_(std::move(params)), bound_(params_.size(), nullptr) {
  for (size_t i = 0; i < args_.pos.size() && i < params_.size(); ++i) bound_[i] = &args_.pos[i];
  for (auto& [key, value] : args_.kw) {
    auto it = std::find(params_.begin(), params_.end(), key);
    if (it == params_.end()) {
      in_.Fail(std::string(fn_) + "() got an unexpected keyword argument '" + key + "'");
    }
    size_t i = static_cast<size_t>(it - params_.begin());
    if (bound_[i] != nullptr) {
      in_.Fail(std::string(fn_) + "() got multiple values for argument '" + key + "'");
    }
    bound_[i] = &value;
  }
}

void ArgBinder::Finish() {
  if (args_.pos.size() > params_.size()) {
    in_.Fail(std::string(fn_) + "() takes at most " + std::to_string(params_.size()) +
             " argument(s) (" + std::to_string(args_.pos.size()) + " given)");
  }
}

bool ArgBinder::Has(size_t index) const { return index < bound_.size() && bound_[index] != nullptr; }

Value ArgBinder::Get(size_t index, Value fallback) const {
  return Has(index) ? *bound_[index] : std::move(fallback);
}

int64_t IntArg(Interp& in, const Value& v, const char* what) {
  if (!v.is_integral()) {
    in.Fail(std::string(what) + ": '" + std::string(PyTypeName(v)) + "' object cannot be interpreted as an integer");
  }
  return v.int_value();
}

namespace {

// ---- tests ----

Value Arg0(Interp& in, Args& a, const char* name) {
  ArgBinder b(in, a, name, {"other"});
  b.Finish();
  if (!b.Has(0)) in.Fail(std::string(name) + "() missing 1 required positional argument");
  return b.Get(0);
}
void NoArgs(Interp& in, Args& a, const char* name) {
  if (!a.pos.empty() || !a.kw.empty()) in.Fail(std::string("test '") + name + "' takes no arguments");
}

bool TDefined(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "defined"); return !v.is_undefined(); }
bool TUndefined(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "undefined"); return v.is_undefined(); }
bool TNone(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "none"); return v.is_none(); }
bool TBoolean(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "boolean"); return v.type() == Type::kBool; }
bool TTrue(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "true"); return v.type() == Type::kBool && v.bool_value(); }
bool TFalse(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "false"); return v.type() == Type::kBool && !v.bool_value(); }
bool TString(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "string"); return v.is_string(); }
bool TNumber(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "number"); return v.is_number(); }
bool TInteger(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "integer"); return v.type() == Type::kInt; }
bool TFloat(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "float"); return v.type() == Type::kFloat; }
bool TMapping(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "mapping"); return v.is_dict(); }
bool TCallable(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "callable");
  return v.type() == Type::kCallable || v.type() == Type::kLoop;
}
bool TIterable(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "iterable");
  return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict() || v.type() == Type::kLoop;
}
bool TSequence(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "sequence");
  if (v.is_list()) {
    SeqKind k = v.seq_kind();
    return k == SeqKind::kList || k == SeqKind::kTuple || k == SeqKind::kRange;
  }
  return v.is_undefined() || v.is_string() || v.is_dict();
}
bool CasePredicate(const Value& v, bool want_lower) {
  std::string s = PyStr(v);
  bool cased = false;
  for (size_t p = 0; p < s.size();) {
    uint32_t cp = NextCodepoint(s, &p);
    if (IsLowerCp(cp)) {
      if (!want_lower) return false;
      cased = true;
    } else if (IsUpperCp(cp)) {
      if (want_lower) return false;
      cased = true;
    }
  }
  return cased;
}
bool TLower(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "lower"); return CasePredicate(v, true); }
bool TUpper(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "upper"); return CasePredicate(v, false); }
bool TEscaped(Interp& in, const Value& v, Args& a) { NoArgs(in, a, "escaped"); return false; }
bool TEven(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "even");
  return !in.Binary(BinOp::kMod, v, Value::Int(2)).Truthy();
}
bool TOdd(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "odd");
  return in.Binary(BinOp::kMod, v, Value::Int(2)).Truthy();
}
bool TDivisibleBy(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "divisibleby", {"num"});
  b.Finish();
  return !in.Binary(BinOp::kMod, v, b.Get(0)).Truthy();
}
bool TEq(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kEq, v, Arg0(in, a, "eq")); }
bool TNe(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kNe, v, Arg0(in, a, "ne")); }
bool TLt(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kLt, v, Arg0(in, a, "lt")); }
bool TLe(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kLe, v, Arg0(in, a, "le")); }
bool TGt(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kGt, v, Arg0(in, a, "gt")); }
bool TGe(Interp& in, const Value& v, Args& a) { return in.Compare(CmpOp::kGe, v, Arg0(in, a, "ge")); }
bool TIn(Interp& in, const Value& v, Args& a) { return in.Contains(Arg0(in, a, "in"), v); }
bool TSameAs(Interp& in, const Value& v, Args& a) {
  Value o = Arg0(in, a, "sameas");
  if (v.type() != o.type()) return false;
  switch (v.type()) {
    case Type::kNone:
    case Type::kUndefined: return v.heap() == o.heap();
    case Type::kBool: return v.bool_value() == o.bool_value();
    case Type::kInt: return v.int_value() == o.int_value() && v.int_value() >= -5 && v.int_value() <= 256;
    case Type::kFloat: return false;
    default: return v.heap() == o.heap();
  }
}
bool TFilter(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "filter");
  return v.is_string() && FindFilter(v.str()) >= 0;
}
bool TTest(Interp& in, const Value& v, Args& a) {
  NoArgs(in, a, "test");
  return v.is_string() && FindTest(v.str()) >= 0;
}

const std::pair<const char*, TestFn> kTests[] = {
    {"defined", TDefined}, {"undefined", TUndefined}, {"none", TNone},
    {"boolean", TBoolean}, {"true", TTrue}, {"false", TFalse},
    {"string", TString}, {"number", TNumber}, {"integer", TInteger},
    {"float", TFloat}, {"mapping", TMapping}, {"callable", TCallable},
    {"iterable", TIterable}, {"sequence", TSequence}, {"lower", TLower},
    {"upper", TUpper}, {"escaped", TEscaped}, {"even", TEven},
    {"odd", TOdd}, {"divisibleby", TDivisibleBy}, {"eq", TEq},
    {"equalto", TEq}, {"==", TEq}, {"ne", TNe}, {"!=", TNe},
    {"lt", TLt}, {"lessthan", TLt}, {"<", TLt}, {"le", TLe}, {"<=", TLe},
    {"gt", TGt}, {"greaterthan", TGt}, {">", TGt}, {"ge", TGe}, {">=", TGe},
    {"in", TIn}, {"sameas", TSameAs}, {"filter", TFilter}, {"test", TTest},
};

// ---- globals ----

constexpr int64_t kMaxRange = 100000;  // jinja2.sandbox.MAX_RANGE

Value GRange(Interp& in, Args& a) {
  if (!a.kw.empty()) in.Fail("range() takes no keyword arguments");
  if (a.pos.empty() || a.pos.size() > 3) in.Fail("range expected 1 to 3 arguments");
  for (const auto& v : a.pos) {
    if (!v.is_integral()) in.Fail("'" + std::string(PyTypeName(v)) + "' object cannot be interpreted as an integer");
  }
  int64_t start = 0, stop, step = 1;
  if (a.pos.size() == 1) {
    stop = a.pos[0].int_value();
  } else {
    start = a.pos[0].int_value();
    stop = a.pos[1].int_value();
    if (a.pos.size() == 3) step = a.pos[2].int_value();
  }
  if (step == 0) in.Fail("range() arg 3 must not be zero");
  __int128 n = 0;
  if (step > 0 && stop > start) n = (static_cast<__int128>(stop) - start + step - 1) / step;
  if (step < 0 && stop < start) n = (static_cast<__int128>(start) - stop - step - 1) / -static_cast<__int128>(step);
  if (n > kMaxRange) {
    in.Fail("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  }
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) items.push_back(Value::Int(start + i * step));
  return Value::Range(start, stop, step, std::move(items));
}

Value GDict(Interp& in, Args& a) {
  std::vector<std::pair<Value, Value>> entries;
  if (a.pos.size() > 1) in.Fail("dict expected at most 1 argument, got " + std::to_string(a.pos.size()));
  if (a.pos.size() == 1) {
    const Value& src = a.pos[0];
    if (src.is_dict()) {
      entries = src.dict().entries;
    } else {
      for (const auto& item : in.Iterate(src)) {
        std::vector<Value> pair = in.Iterate(item);
        if (pair.size() != 2) in.Fail("dictionary update sequence element has wrong length");
        entries.emplace_back(pair[0], pair[1]);
      }
    }
  }
  for (auto& [k, v] : a.kw) entries.emplace_back(S(k), v);
  return Value::Dict(std::move(entries));
}

Value GNamespace(Interp& in, Args& a) {
  std::vector<std::pair<std::string, Value>> attrs;
  if (a.pos.size() > 1) in.Fail("namespace expected at most 1 positional argument");
  if (a.pos.size() == 1) {
    Args inner;
    inner.pos.push_back(a.pos[0]);
    Value d = GDict(in, inner);
    for (auto& [k, v] : d.dict().entries) attrs.emplace_back(PyStr(k), v);
  }
  for (auto& [k, v] : a.kw) attrs.emplace_back(k, v);
  for (auto& [k, v] : attrs) {
    if (!k.empty() && k[0] == '_') {
      in.Fail("chat templates cannot store underscore-prefixed attributes on a namespace ('" + k + "')");
    }
  }
  return Value::Namespace(std::move(attrs));
}

Value GRaiseException(Interp& in, Args& a) {
  ArgBinder b(in, a, "raise_exception", {"message"});
  b.Finish();
  in.Fail(PyStr(b.Get(0)));
}

Value GStrftimeNow(Interp& in, Args& a) {
  ArgBinder b(in, a, "strftime_now", {"format"});
  b.Finish();
  Value fmt = b.Get(0);
  if (!fmt.is_string()) in.Fail("strftime() argument 1 must be str, not " + std::string(PyTypeName(fmt)));
  std::time_t t = in.options().fixed_time_unix ? static_cast<std::time_t>(*in.options().fixed_time_unix)
                                               : std::time(nullptr);
  std::tm tm{};
  if (in.options().fixed_time_unix) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  if (fmt.str().empty()) return S("");
  std::string buf(256, '\0');
  for (int attempt = 0; attempt < 8; ++attempt) {
    size_t n = std::strftime(buf.data(), buf.size(), fmt.str().c_str(), &tm);
    if (n > 0) return S(buf.substr(0, n));
    buf.resize(buf.size() * 4);
  }
  return S("");
}

const std::pair<const char*, GlobalFn> kGlobals[] = {
    {"range", GRange},
    {"dict", GDict},
    {"namespace", GNamespace},
    {"raise_exception", GRaiseException},
    {"strftime_now", GStrftimeNow},
};

}  // namespace

int FindFilter(std::string_view name) {
  for (size_t i = 0; i < kFilterTableSize; ++i) {
    if (name == kFilterTable[i].first) return static_cast<int>(i);
  }
  return -1;
}
int FindTest(std::string_view name) {
  for (size_t i = 0; i < std::size(kTests); ++i) {
    if (name == kTests[i].first) return static_cast<int>(i);
  }
  return -1;
}
int FindGlobal(std::string_view name) {
  for (size_t i = 0; i < std::size(kGlobals); ++i) {
    if (name == kGlobals[i].first) return static_cast<int>(i);
  }
  return -1;
}
FilterFn GetFilter(int id) { return kFilterTable[id].second; }
TestFn GetTest(int id) { return kTests[id].second; }
GlobalFn GetGlobal(int id) { return kGlobals[id].second; }
std::string_view GlobalName(int id) { return kGlobals[id].first; }

Value Interp::ApplyFilterByName(const std::string& name, const Value& input, Args& args) {
  int id = FindFilter(name);
  if (id < 0) Fail("no filter named '" + name + "'");
  return GetFilter(id)(*this, input, args);
}

bool Interp::ApplyTestByName(const std::string& name, const Value& input, Args& args) {
  int id = FindTest(name);
  if (id < 0) Fail("no test named '" + name + "'");
  return GetTest(id)(*this, input, args);
}

}  // namespace gemmad::tmpl::internal
