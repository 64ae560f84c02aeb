// Object operations with the sandbox's rules: attribute and item lookup (jinja2's getattr
// falls back to getitem and vice versa, unknown names give Undefined, mutating methods and
// dunder names are blocked), slicing, iteration, len(), `in`, and calling values.
#include <cmath>

#include "template/interp.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

bool IsUnsafeMethod(const Value& obj, const std::string& name) {
  if (obj.is_dict()) {
    return name == "clear" || name == "pop" || name == "popitem" || name == "setdefault" ||
           name == "update";
  }
  if (obj.is_list() && (obj.seq_kind() == SeqKind::kList)) {
    return name == "append" || name == "clear" || name == "extend" || name == "insert" ||
           name == "pop" || name == "remove" || name == "reverse" || name == "sort";
  }
  return false;
}

std::string NoAttr(const Value& obj, const std::string& name) {
  return "'" + std::string(PyTypeName(obj)) + " object' has no attribute '" + name + "'";
}

Value Unsafe(const Value& obj, const std::string& name) {
  return Value::Undefined("access to attribute '" + name + "' of '" + std::string(PyTypeName(obj)) +
                              "' object is unsafe.",
                          /*unsafe=*/true);
}

Value BoundMethod(const Value& self, const std::string& name) {
  auto c = std::make_shared<CallableObj>();
  c->kind = CallableKind::kBoundMethod;
  c->name = name;
  c->self = self;
  return Value::FromHeap(Type::kCallable, std::move(c));
}

// Character i (code points) of s, or nullopt.
bool CharAt(const std::string& s, int64_t i, std::string* out) {
  if (IsAscii(s)) {
    int64_t n = static_cast<int64_t>(s.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) return false;
    *out = std::string(1, s[static_cast<size_t>(i)]);
    return true;
  }
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t p = 0; p < s.size();) {
    size_t start = p;
    NextCodepoint(s, &p);
    spans.emplace_back(start, p - start);
  }
  int64_t n = static_cast<int64_t>(spans.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) return false;
  *out = s.substr(spans[static_cast<size_t>(i)].first, spans[static_cast<size_t>(i)].second);
  return true;
}

std::vector<std::string> Chars(const std::string& s) {
  std::vector<std::string> out;
  for (size_t p = 0; p < s.size();) {
    size_t start = p;
    NextCodepoint(s, &p);
    out.push_back(s.substr(start, p - start));
  }
  return out;
}

}  // namespace

Value Interp::GetAttr(const Value& obj, const std::string& name) {
  if (obj.is_undefined()) FailUndefined(obj);
  if (name.size() >= 2 && name[0] == '_' && name[1] == '_') return Unsafe(obj, name);
  switch (obj.type()) {
    case Type::kDict: {
      if (IsUnsafeMethod(obj, name)) return Unsafe(obj, name);
      if (HasMethod(obj, name)) return BoundMethod(obj, name);
      if (const Value* v = obj.dict().FindStr(name)) return *v;
      return Value::Undefined(NoAttr(obj, name));
    }
    case Type::kNamespace: {
      if (const Value* v = obj.ns().Find(name)) return *v;
      return Value::Undefined(NoAttr(obj, name));
    }
    case Type::kLoop: {
      const LoopObj& l = obj.loop();
      const int64_t n = l.items ? static_cast<int64_t>(l.items->size()) : 0;
      const int64_t i = static_cast<int64_t>(l.index0);
      if (name == "index") return Value::Int(i + 1);
      if (name == "index0") return Value::Int(i);
      if (name == "revindex") return Value::Int(n - i);
      if (name == "revindex0") return Value::Int(n - i - 1);
      if (name == "first") return Value::Bool(i == 0);
      if (name == "last") return Value::Bool(i == n - 1);
      if (name == "length") return Value::Int(n);
      if (name == "depth") return Value::Int(l.depth0 + 1);
      if (name == "depth0") return Value::Int(l.depth0);
      if (name == "previtem") {
        if (i > 0 && l.items) return (*l.items)[static_cast<size_t>(i - 1)];
        return Value::Undefined("there is no previous item");
      }
      if (name == "nextitem") {
        if (i + 1 < n && l.items) return (*l.items)[static_cast<size_t>(i + 1)];
        return Value::Undefined("there is no next item");
      }
      if (HasMethod(obj, name)) return BoundMethod(obj, name);
      return Value::Undefined(NoAttr(obj, name));
    }
    case Type::kBool:
    case Type::kInt:
      if (name == "real" || name == "numerator") return Value::Int(obj.int_value());
      if (name == "imag") return Value::Int(0);
      if (name == "denominator") return Value::Int(1);
      return Value::Undefined(NoAttr(obj, name));
    case Type::kFloat:
      if (name == "real") return obj;
      if (name == "imag") return Value::Float(0.0);
      return Value::Undefined(NoAttr(obj, name));
    default:
      if (IsUnsafeMethod(obj, name)) return Unsafe(obj, name);
      if (HasMethod(obj, name)) return BoundMethod(obj, name);
      return Value::Undefined(NoAttr(obj, name));
  }
}

Value Interp::GetItem(const Value& obj, const Value& key) {
  if (obj.is_undefined()) FailUndefined(obj);
  switch (obj.type()) {
    case Type::kDict: {
      if (const Value* v = obj.dict().Find(key)) return *v;
      if (key.is_string()) {
        if (IsUnsafeMethod(obj, key.str())) return Unsafe(obj, key.str());
        if (HasMethod(obj, key.str())) return BoundMethod(obj, key.str());
        return Value::Undefined(NoAttr(obj, key.str()));
      }
      return Value::Undefined("'dict object' has no attribute " + PyStr(key));
    }
    case Type::kList: {
      SeqKind k = obj.seq_kind();
      bool indexable = k == SeqKind::kList || k == SeqKind::kTuple || k == SeqKind::kRange;
      if (indexable && key.is_integral()) {
        const auto& items = obj.list().items;
        int64_t n = static_cast<int64_t>(items.size());
        int64_t i = key.int_value();
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::Undefined(std::string(PyTypeName(obj)) + " object has no element " + std::to_string(key.int_value()));
        return items[static_cast<size_t>(i)];
      }
      break;
    }
    case Type::kString:
      if (key.is_integral()) {
        std::string c;
        if (CharAt(obj.str(), key.int_value(), &c)) return S(std::move(c));
        return Value::Undefined("str object has no element " + std::to_string(key.int_value()));
      }
      break;
    default:
      break;
  }
  if (key.is_string()) return GetAttr(obj, key.str());
  return Value::Undefined(std::string(PyTypeName(obj)) + " object has no element " + PyStr(key));
}

Value Interp::Slice(const Value& obj, const Value& start_v, const Value& stop_v,
                    const Value& step_v) {
  if (obj.is_undefined()) FailUndefined(obj);
  for (const Value* v : {&start_v, &stop_v, &step_v}) {
    if (!v->is_none() && !v->is_integral()) {
      Fail("slice indices must be integers or None or have an __index__ method");
    }
  }
  int64_t step = step_v.is_none() ? 1 : step_v.int_value();
  if (step == 0) Fail("slice step cannot be zero");
  bool is_str = obj.is_string();
  bool is_seq = obj.is_list() && (obj.seq_kind() == SeqKind::kList ||
                                  obj.seq_kind() == SeqKind::kTuple ||
                                  obj.seq_kind() == SeqKind::kRange);
  if (!is_str && !is_seq) return Value::Undefined(std::string(PyTypeName(obj)) + " object is not subscriptable");
  std::vector<std::string> chars;
  bool ascii = is_str && IsAscii(obj.str());
  if (is_str && !ascii) chars = Chars(obj.str());
  int64_t n = is_str ? static_cast<int64_t>(ascii ? obj.str().size() : chars.size())
                     : static_cast<int64_t>(obj.list().items.size());
  auto adjust = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t i = v.int_value();
    if (i < 0) {
      i += n;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= n) {
      i = step < 0 ? n - 1 : n;
    }
    return i;
  };
  int64_t start = adjust(start_v, step < 0 ? n - 1 : 0);
  int64_t stop = adjust(stop_v, step < 0 ? -1 : n);
  if (is_str) {
    std::string out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (ascii) {
        out.push_back(obj.str()[static_cast<size_t>(i)]);
      } else {
        out += chars[static_cast<size_t>(i)];
      }
    }
    return S(std::move(out));
  }
  std::vector<Value> out;
  const auto& items = obj.list().items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push_back(items[static_cast<size_t>(i)]);
  }
  return Value::List(std::move(out),
                     obj.seq_kind() == SeqKind::kTuple ? SeqKind::kTuple : SeqKind::kList);
}

std::vector<Value> Interp::Iterate(const Value& v) {
  switch (v.type()) {
    case Type::kUndefined:
      return {};
    case Type::kList:
      return v.list().items;
    case Type::kDict: {
      std::vector<Value> keys;
      keys.reserve(v.dict().entries.size());
      for (const auto& e : v.dict().entries) keys.push_back(e.first);
      return keys;
    }
    case Type::kString: {
      std::vector<Value> out;
      for (auto& c : Chars(v.str())) out.push_back(S(std::move(c)));
      return out;
    }
    default:
      Fail("'" + std::string(PyTypeName(v)) + "' object is not iterable");
  }
}

bool Interp::Contains(const Value& container, const Value& item) {
  switch (container.type()) {
    case Type::kUndefined:
      return false;
    case Type::kString:
      if (!item.is_string()) {
        Fail("'in <string>' requires string as left operand, not " + std::string(PyTypeName(item)));
      }
      return container.str().find(item.str()) != std::string::npos;
    case Type::kList:
      for (const auto& x : container.list().items) {
        if (PyEquals(x, item)) return true;
      }
      return false;
    case Type::kDict:
      if (item.is_list() && item.seq_kind() != SeqKind::kTuple) {
        Fail("unhashable type: '" + std::string(PyTypeName(item)) + "'");
      }
      return container.dict().Find(item) != nullptr;
    default:
      Fail("argument of type '" + std::string(PyTypeName(container)) + "' is not iterable");
  }
}

int64_t Interp::Length(const Value& v) {
  switch (v.type()) {
    case Type::kUndefined:
      return 0;
    case Type::kString:
      return static_cast<int64_t>(CodepointCount(v.str()));
    case Type::kList:
      if (v.seq_kind() == SeqKind::kGenerator) Fail("object of type 'generator' has no len()");
      return static_cast<int64_t>(v.list().items.size());
    case Type::kDict:
      return static_cast<int64_t>(v.dict().entries.size());
    default:
      Fail("object of type '" + std::string(PyTypeName(v)) + "' has no len()");
  }
}

Value Interp::Invoke(const Value& callee, Args& args) {
  switch (callee.type()) {
    case Type::kCallable: {
      const CallableObj& c = callee.callable();
      switch (c.kind) {
        case CallableKind::kMacro:
          return CallMacro(c, args);
        case CallableKind::kBuiltin:
          return GetGlobal(c.builtin)(*this, args);
        case CallableKind::kBoundMethod:
          return CallMethod(c.self, c.name, args);
        default:
          break;
      }
      break;
    }
    case Type::kLoop: {
      LoopObj& l = callee.loop();
      if (!l.stmt->recursive) {
        Fail("Tried to call non recursive loop. Maybe you forgot the 'recursive' modifier.");
      }
      if (args.pos.size() != 1 || !args.kw.empty()) Fail("loop() takes exactly one argument");
      if (++call_depth_ > options_.limits.max_call_depth) Fail("maximum loop recursion depth exceeded");
      std::string out;
      ExecFor(*l.stmt, l.frame, args.pos[0], l.depth0 + 1, out);
      --call_depth_;
      return S(std::move(out));
    }
    case Type::kUndefined:
      FailUndefined(callee);
    default:
      break;
  }
  Fail("'" + std::string(PyTypeName(callee)) + "' object is not callable");
}

std::string Interp::Str(const Value& v) { return PyStr(v); }

}  // namespace gemmad::tmpl::internal
