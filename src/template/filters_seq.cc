// Sequence and mapping filters: length/first/last/list/join/default/items/dictsort/sort/unique/
// reverse/map/select/reject/selectattr/rejectattr/sum/min/max/attr/batch. map/select/reject/
// items/unique return generator-like values (truthy, no len()) as jinja2's do.
#include <algorithm>

#include "template/filters.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

Value Generator(std::vector<Value> items) { return Value::List(std::move(items), SeqKind::kGenerator); }

Value IgnoreCase(const Value& v) { return v.is_string() ? S(PyLower(v.str())) : v; }

// jinja2's make_attrgetter: "a.b.0" walks items with the sandbox's getitem (ints for digits).
class AttrGetter {
 public:
  AttrGetter(Interp& in, const Value& attribute) : in_(in) {
    if (attribute.is_none() || attribute.is_undefined()) return;
    if (attribute.is_string()) {
      std::string s = attribute.str();
      size_t start = 0;
      while (true) {
        size_t dot = s.find('.', start);
        std::string part = s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
        parts_.push_back(digits && part.size() < 18 ? Value::Int(std::stoll(part)) : S(part));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
    } else {
      parts_.push_back(attribute);
    }
  }
  Value Get(Value item, const Value* dflt = nullptr) const {
    for (const auto& p : parts_) {
      item = in_.GetItem(item, p);
      if (dflt != nullptr && item.is_undefined()) item = *dflt;
    }
    return item;
  }

 private:
  Interp& in_;
  std::vector<Value> parts_;
};

// Keys for sort/min/max/unique.
std::vector<Value> Keys(Interp& in, const std::vector<Value>& items, const Value& attribute,
                        bool case_sensitive) {
  std::vector<Value> keys;
  keys.reserve(items.size());
  // sort accepts "a,b": a list of keys compared lexicographically.
  std::vector<AttrGetter> getters;
  if (attribute.is_string() && attribute.str().find(',') != std::string::npos) {
    std::string s = attribute.str();
    size_t start = 0;
    while (true) {
      size_t c = s.find(',', start);
      getters.emplace_back(in, S(s.substr(start, c == std::string::npos ? std::string::npos : c - start)));
      if (c == std::string::npos) break;
      start = c + 1;
    }
    for (const auto& item : items) {
      std::vector<Value> parts;
      for (const auto& g : getters) {
        Value k = g.Get(item);
        parts.push_back(case_sensitive ? k : IgnoreCase(k));
      }
      keys.push_back(Value::List(std::move(parts)));
    }
    return keys;
  }
  AttrGetter g(in, attribute);
  for (const auto& item : items) {
    Value k = g.Get(item);
    keys.push_back(case_sensitive ? k : IgnoreCase(k));
  }
  return keys;
}

std::vector<Value> SortedByKeys(Interp& in, const std::vector<Value>& items,
                                const std::vector<Value>& keys, bool reverse) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reverse ? in.Less(keys[b], keys[a]) : in.Less(keys[a], keys[b]);
  });
  std::vector<Value> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(items[i]);
  return out;
}

Value SelectOrReject(Interp& in, const Value& v, Args& a, bool lookup_attr, bool select) {
  std::vector<Value> items = in.Iterate(v);
  size_t off = 0;
  std::optional<AttrGetter> getter;
  if (lookup_attr) {
    if (a.pos.empty()) in.Fail("Missing parameter for attribute name");
    getter.emplace(in, a.pos[0]);
    off = 1;
  }
  bool has_test = a.pos.size() > off;
  std::string test_name = has_test ? PyStr(a.pos[off]) : "";
  Args test_args;
  if (has_test) {
    test_args.pos.assign(a.pos.begin() + static_cast<long>(off + 1), a.pos.end());
    test_args.kw = a.kw;
  }
  std::vector<Value> out;
  for (auto& item : items) {
    Value x = getter ? getter->Get(item) : item;
    bool r;
    if (has_test) {
      Args call = test_args;
      r = in.ApplyTestByName(test_name, x, call);
    } else {
      r = x.Truthy();
    }
    if (r == select) out.push_back(std::move(item));
  }
  return Generator(std::move(out));
}

}  // namespace

Value FLength(Interp& in, const Value& v, Args& a) { return Value::Int(in.Length(v)); }

Value FFirst(Interp& in, const Value& v, Args& a) {
  std::vector<Value> items = in.Iterate(v);
  if (items.empty()) return Value::Undefined("No first item, sequence was empty.");
  return items.front();
}

Value FLast(Interp& in, const Value& v, Args& a) {
  if (v.is_list() && v.seq_kind() == SeqKind::kGenerator) in.Fail("'generator' object is not reversible");
  std::vector<Value> items = in.Iterate(v);
  if (items.empty()) return Value::Undefined("No last item, sequence was empty.");
  return items.back();
}

Value FList(Interp& in, const Value& v, Args& a) { return Value::List(in.Iterate(v)); }

Value FJoin(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "join", {"d", "attribute"});
  b.Finish();
  std::string sep = PyStr(b.Get(0, S("")));
  std::vector<Value> items = in.Iterate(v);
  AttrGetter g(in, b.Get(1, Value::None()));
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    AppendPyStr(out, g.Get(items[i]));
    in.CheckSize(out.size());
  }
  return S(std::move(out));
}

Value FDefault(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "default", {"default_value", "boolean"});
  b.Finish();
  bool boolean = b.Get(1, Value::Bool(false)).Truthy();
  if (v.is_undefined() || (boolean && !v.Truthy())) return b.Get(0, S(""));
  return v;
}

Value FItems(Interp& in, const Value& v, Args& a) {
  if (v.is_undefined()) return Generator({});
  if (!v.is_dict()) in.Fail("Can only get item pairs from a mapping.");
  std::vector<Value> out;
  for (const auto& [k, val] : v.dict().entries) out.push_back(Value::Tuple({k, val}));
  return Generator(std::move(out));
}

Value FDictsort(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "dictsort", {"case_sensitive", "by", "reverse"});
  b.Finish();
  bool case_sensitive = b.Get(0, Value::Bool(false)).Truthy();
  std::string by = PyStr(b.Get(1, S("key")));
  bool reverse = b.Get(2, Value::Bool(false)).Truthy();
  if (by != "key" && by != "value") in.Fail("You can only sort by either 'key' or 'value'");
  if (v.is_undefined()) in.FailUndefined(v);
  if (!v.is_dict()) in.Fail("'" + std::string(PyTypeName(v)) + "' object has no attribute 'items'");
  std::vector<Value> items, keys;
  for (const auto& [k, val] : v.dict().entries) {
    items.push_back(Value::Tuple({k, val}));
    const Value& key = by == "key" ? k : val;
    keys.push_back(case_sensitive ? key : IgnoreCase(key));
  }
  return Value::List(SortedByKeys(in, items, keys, reverse));
}

Value FSort(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "sort", {"reverse", "case_sensitive", "attribute"});
  b.Finish();
  bool reverse = b.Get(0, Value::Bool(false)).Truthy();
  bool case_sensitive = b.Get(1, Value::Bool(false)).Truthy();
  std::vector<Value> items = in.Iterate(v);
  std::vector<Value> keys = Keys(in, items, b.Get(2, Value::None()), case_sensitive);
  return Value::List(SortedByKeys(in, items, keys, reverse));
}

Value FUnique(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "unique", {"case_sensitive", "attribute"});
  b.Finish();
  std::vector<Value> items = in.Iterate(v);
  std::vector<Value> keys = Keys(in, items, b.Get(1, Value::None()), b.Get(0, Value::Bool(false)).Truthy());
  std::vector<Value> out, seen;
  for (size_t i = 0; i < items.size(); ++i) {
    bool dup = false;
    for (const auto& s : seen) {
      if (PyEquals(s, keys[i])) {
        dup = true;
        break;
      }
    }
    if (dup) continue;
    seen.push_back(keys[i]);
    out.push_back(items[i]);
  }
  return Generator(std::move(out));
}

Value FReverse(Interp& in, const Value& v, Args& a) {
  if (v.is_string()) {
    std::vector<uint32_t> cps;
    for (size_t p = 0; p < v.str().size();) cps.push_back(NextCodepoint(v.str(), &p));
    std::string out;
    for (auto it = cps.rbegin(); it != cps.rend(); ++it) AppendCodepoint(out, *it);
    return S(std::move(out));
  }
  std::vector<Value> items = in.Iterate(v);
  std::reverse(items.begin(), items.end());
  bool reversible = !(v.is_list() && v.seq_kind() == SeqKind::kGenerator);
  return reversible ? Generator(std::move(items)) : Value::List(std::move(items));
}

Value FMap(Interp& in, const Value& v, Args& a) {
  std::vector<Value> items = in.Iterate(v);
  std::vector<Value> out;
  out.reserve(items.size());
  if (a.pos.empty()) {
    Value attribute, dflt;
    bool has_attr = false, has_default = false;
    for (auto& [k, val] : a.kw) {
      if (k == "attribute") {
        attribute = val;
        has_attr = true;
      } else if (k == "default") {
        dflt = val;
        has_default = true;
      } else {
        in.Fail("Unexpected keyword argument '" + k + "'");
      }
    }
    if (!has_attr) in.Fail("map requires a filter argument");
    AttrGetter g(in, attribute);
    for (auto& item : items) out.push_back(g.Get(item, has_default && !dflt.is_none() ? &dflt : nullptr));
    return Generator(std::move(out));
  }
  std::string name = PyStr(a.pos[0]);
  Args rest;
  rest.pos.assign(a.pos.begin() + 1, a.pos.end());
  rest.kw = a.kw;
  for (auto& item : items) {
    Args call = rest;
    out.push_back(in.ApplyFilterByName(name, item, call));
  }
  return Generator(std::move(out));
}

Value FSelect(Interp& in, const Value& v, Args& a) { return SelectOrReject(in, v, a, false, true); }
Value FReject(Interp& in, const Value& v, Args& a) { return SelectOrReject(in, v, a, false, false); }
Value FSelectattr(Interp& in, const Value& v, Args& a) { return SelectOrReject(in, v, a, true, true); }
Value FRejectattr(Interp& in, const Value& v, Args& a) { return SelectOrReject(in, v, a, true, false); }

Value FSum(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "sum", {"attribute", "start"});
  b.Finish();
  AttrGetter g(in, b.Get(0, Value::None()));
  Value total = b.Get(1, Value::Int(0));
  if (total.is_string()) in.Fail("sum() can't sum strings [use ''.join(seq) instead]");
  for (const auto& item : in.Iterate(v)) total = in.Binary(BinOp::kAdd, total, g.Get(item));
  return total;
}

static Value MinMax(Interp& in, const Value& v, Args& a, bool want_max) {
  ArgBinder b(in, a, want_max ? "max" : "min", {"case_sensitive", "attribute"});
  b.Finish();
  std::vector<Value> items = in.Iterate(v);
  if (items.empty()) return Value::Undefined("No aggregated item, sequence was empty.");
  std::vector<Value> keys = Keys(in, items, b.Get(1, Value::None()), b.Get(0, Value::Bool(false)).Truthy());
  size_t best = 0;
  for (size_t i = 1; i < items.size(); ++i) {
    if (want_max ? in.Less(keys[best], keys[i]) : in.Less(keys[i], keys[best])) best = i;
  }
  return items[best];
}

Value FMin(Interp& in, const Value& v, Args& a) { return MinMax(in, v, a, false); }
Value FMax(Interp& in, const Value& v, Args& a) { return MinMax(in, v, a, true); }

// jinja2's attr filter: plain getattr (no item fallback), so dict keys are not attributes.
Value FAttr(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "attr", {"name"});
  b.Finish();
  Value name = b.Get(0);
  if (!name.is_string()) in.Fail("attribute name must be a string");
  if (v.is_dict() && !in.HasMethod(v, name.str())) {
    return Value::Undefined("'dict object' has no attribute '" + name.str() + "'");
  }
  return in.GetAttr(v, name.str());
}

Value FBatch(Interp& in, const Value& v, Args& a) {
  ArgBinder b(in, a, "batch", {"linecount", "fill_with"});
  b.Finish();
  Value count_v = b.Get(0);
  if (!count_v.is_integral() || count_v.int_value() <= 0) in.Fail("batch: linecount must be a positive integer");
  size_t n = static_cast<size_t>(count_v.int_value());
  bool fill = b.Has(1) && !b.Get(1).is_none();
  std::vector<Value> items = in.Iterate(v), out, cur;
  for (auto& item : items) {
    cur.push_back(std::move(item));
    if (cur.size() == n) {
      out.push_back(Value::List(std::move(cur)));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    while (fill && cur.size() < n) cur.push_back(b.Get(1));
    out.push_back(Value::List(std::move(cur)));
  }
  return Generator(std::move(out));
}

}  // namespace gemmad::tmpl::internal
