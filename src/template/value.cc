// Value construction, accessors, truthiness, Python equality and JSON conversion.
#include "template/value.h"

#include <algorithm>

#include "base/check.h"

namespace gemmad::tmpl::internal {
namespace {

const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}

constexpr size_t kIndexThreshold = 8;

void BuildIndex(DictObj& d) {
  if (d.entries.size() < kIndexThreshold) return;
  d.str_index.clear();
  for (uint32_t i = 0; i < d.entries.size(); ++i) {
    if (d.entries[i].first.is_string()) d.str_index.emplace_back(d.entries[i].first.str(), i);
  }
  std::sort(d.str_index.begin(), d.str_index.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
}

int DepthOf(const std::vector<Value>& items) {
  int d = 0;
  for (const auto& v : items) d = std::max(d, ChildDepth(v));
  return d + 1;
}

int DepthOf(const std::vector<std::pair<Value, Value>>& entries) {
  int d = 0;
  for (const auto& [k, v] : entries) d = std::max({d, ChildDepth(k), ChildDepth(v)});
  return d + 1;
}

void CheckDepth(int depth) {
  if (depth > kMaxValueDepth) {
    throw ValueError{"value nested deeper than " + std::to_string(kMaxValueDepth) + " levels"};
  }
}

}  // namespace

int ChildDepth(const Value& v) {
  switch (v.type()) {
    case Type::kList: return v.list().depth;
    case Type::kDict: return v.dict().depth;
    case Type::kNamespace:
      throw ValueError{"namespaces cannot be stored inside lists, dicts or other namespaces"};
    default: return 0;
  }
}

Value Value::Undefined(std::string hint, bool unsafe) {
  Value v(Type::kUndefined);
  v.obj_ = std::make_shared<UndefObj>(std::move(hint), unsafe);
  return v;
}

Value Value::Str(std::string s) {
  Value v(Type::kString);
  v.obj_ = std::make_shared<StrObj>(std::move(s));
  return v;
}

Value Value::List(std::vector<Value> items, SeqKind kind) {
  auto obj = std::make_shared<ListObj>();
  obj->depth = DepthOf(items);
  CheckDepth(obj->depth);
  obj->items = std::move(items);
  obj->kind = kind;
  Value v(Type::kList);
  v.obj_ = std::move(obj);
  return v;
}

Value Value::Range(int64_t start, int64_t stop, int64_t step, std::vector<Value> items) {
  auto obj = std::make_shared<ListObj>();
  obj->items = std::move(items);  // ints only
  obj->kind = SeqKind::kRange;
  obj->range_start = start;
  obj->range_stop = stop;
  obj->range_step = step;
  Value v(Type::kList);
  v.obj_ = std::move(obj);
  return v;
}

Value Value::Dict(std::vector<std::pair<Value, Value>> entries) {
  auto obj = std::make_shared<DictObj>();
  obj->depth = DepthOf(entries);
  CheckDepth(obj->depth);
  // Later duplicates overwrite earlier ones in place (Python dict literal semantics).
  for (auto& [k, val] : entries) {
    bool replaced = false;
    for (auto& e : obj->entries) {
      if (PyEquals(e.first, k)) {
        e.second = std::move(val);
        replaced = true;
        break;
      }
    }
    if (!replaced) obj->entries.emplace_back(std::move(k), std::move(val));
  }
  BuildIndex(*obj);
  Value v(Type::kDict);
  v.obj_ = std::move(obj);
  return v;
}

Value Value::DictUnique(std::vector<std::pair<Value, Value>> entries) {
  auto obj = std::make_shared<DictObj>();
  obj->depth = DepthOf(entries);
  CheckDepth(obj->depth);
  obj->entries = std::move(entries);
  BuildIndex(*obj);
  Value v(Type::kDict);
  v.obj_ = std::move(obj);
  return v;
}

Value Value::Namespace(std::vector<std::pair<std::string, Value>> attrs) {
  auto obj = std::make_shared<NamespaceObj>();
  for (auto& [k, val] : attrs) obj->Set(k, std::move(val));
  Value v(Type::kNamespace);
  v.obj_ = std::move(obj);
  return v;
}

const std::string& Value::str() const {
  if (type_ != Type::kString) return EmptyString();
  return static_cast<const StrObj*>(obj_.get())->s;
}
const ListObj& Value::list() const {
  GEMMAD_CHECK(type_ == Type::kList);
  return *static_cast<const ListObj*>(obj_.get());
}
SeqKind Value::seq_kind() const { return list().kind; }
const DictObj& Value::dict() const {
  GEMMAD_CHECK(type_ == Type::kDict);
  return *static_cast<const DictObj*>(obj_.get());
}
NamespaceObj& Value::ns() const {
  GEMMAD_CHECK(type_ == Type::kNamespace);
  return *static_cast<NamespaceObj*>(obj_.get());
}
const CallableObj& Value::callable() const {
  GEMMAD_CHECK(type_ == Type::kCallable);
  return *static_cast<const CallableObj*>(obj_.get());
}
LoopObj& Value::loop() const {
  GEMMAD_CHECK(type_ == Type::kLoop);
  return *static_cast<LoopObj*>(obj_.get());
}
const UndefObj* Value::undef() const {
  if (type_ != Type::kUndefined) return nullptr;
  return static_cast<const UndefObj*>(obj_.get());
}

bool Value::Truthy() const {
  switch (type_) {
    case Type::kUndefined:
    case Type::kNone:
      return false;
    case Type::kBool:
    case Type::kInt:
      return i_ != 0;
    case Type::kFloat:
      return f_ != 0.0;
    case Type::kString:
      return !str().empty();
    case Type::kList:
      return list().kind == SeqKind::kGenerator || !list().items.empty();
    case Type::kDict:
      return !dict().entries.empty();
    default:
      return true;
  }
}

const Value* DictObj::FindStr(std::string_view key) const {
  if (!str_index.empty()) {
    auto it = std::lower_bound(str_index.begin(), str_index.end(), key,
                               [](const auto& e, std::string_view k) { return e.first < k; });
    if (it != str_index.end() && it->first == key) return &entries[it->second].second;
    return nullptr;
  }
  for (const auto& e : entries) {
    if (e.first.is_string() && e.first.str() == key) return &e.second;
  }
  return nullptr;
}

const Value* DictObj::Find(const Value& key) const {
  if (key.is_string()) return FindStr(key.str());
  for (const auto& e : entries) {
    if (PyEquals(e.first, key)) return &e.second;
  }
  return nullptr;
}

Value* NamespaceObj::Find(std::string_view name) {
  for (auto& a : attrs) {
    if (a.first == name) return &a.second;
  }
  return nullptr;
}

void NamespaceObj::Set(const std::string& name, Value v) {
  ChildDepth(v);  // rejects namespaces
  if (Value* slot = Find(name)) {
    *slot = std::move(v);
  } else {
    attrs.emplace_back(name, std::move(v));
  }
}

bool PyEquals(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.type() == Type::kFloat || b.type() == Type::kFloat) return a.as_double() == b.as_double();
    return a.int_value() == b.int_value();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::kUndefined:
    case Type::kNone:
      return true;
    case Type::kString:
      return a.str() == b.str();
    case Type::kList: {
      const ListObj& x = a.list();
      const ListObj& y = b.list();
      bool x_tuple = x.kind == SeqKind::kTuple, y_tuple = y.kind == SeqKind::kTuple;
      if (x_tuple != y_tuple) return false;
      if (x.kind == SeqKind::kGenerator || y.kind == SeqKind::kGenerator) return &x == &y;
      if (x.items.size() != y.items.size()) return false;
      for (size_t i = 0; i < x.items.size(); ++i) {
        if (!PyEquals(x.items[i], y.items[i])) return false;
      }
      return true;
    }
    case Type::kDict: {
      const DictObj& x = a.dict();
      const DictObj& y = b.dict();
      if (x.entries.size() != y.entries.size()) return false;
      for (const auto& [k, v] : x.entries) {
        const Value* other = y.Find(k);
        if (other == nullptr || !PyEquals(v, *other)) return false;
      }
      return true;
    }
    default:
      return a.heap() == b.heap();
  }
}

Value FromJson(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return Value::None();
    case Json::value_t::boolean:
      return Value::Bool(j.get<bool>());
    case Json::value_t::number_integer:
      return Value::Int(j.get<int64_t>());
    case Json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return Value::Int(static_cast<int64_t>(u));
      return Value::Float(static_cast<double>(u));
    }
    case Json::value_t::number_float:
      return Value::Float(j.get<double>());
    case Json::value_t::string:
      return Value::Str(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      std::vector<Value> items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(FromJson(e));
      return Value::List(std::move(items));
    }
    case Json::value_t::object: {
      std::vector<std::pair<Value, Value>> entries;
      entries.reserve(j.size());
      for (auto it = j.begin(); it != j.end(); ++it) {
        entries.emplace_back(Value::Str(it.key()), FromJson(it.value()));
      }
      return Value::DictUnique(std::move(entries));
    }
    default:
      return Value::None();  // binary / discarded: not produced by the JSON parser
  }
}

std::string_view PyTypeName(const Value& v) {
  switch (v.type()) {
    case Type::kUndefined: return "Undefined";
    case Type::kNone: return "NoneType";
    case Type::kBool: return "bool";
    case Type::kInt: return "int";
    case Type::kFloat: return "float";
    case Type::kString: return "str";
    case Type::kList:
      switch (v.seq_kind()) {
        case SeqKind::kList: return "list";
        case SeqKind::kTuple: return "tuple";
        case SeqKind::kGenerator: return "generator";
        case SeqKind::kDictItems: return "dict_items";
        case SeqKind::kDictKeys: return "dict_keys";
        case SeqKind::kDictValues: return "dict_values";
        case SeqKind::kRange: return "range";
      }
      return "list";
    case Type::kDict: return "dict";
    case Type::kNamespace: return "Namespace";
    case Type::kCallable: return "function";
    case Type::kLoop: return "LoopContext";
  }
  return "object";
}

}  // namespace gemmad::tmpl::internal
