// Value: the dynamic value of the Jinja interpreter, modelled on the Python objects jinja2 sees
// (None, bool, int, float, str, list/tuple and their lazy cousins, dict, namespace, callables,
// jinja2's Undefined). Containers are immutable once built and shared by reference; only a
// namespace's attributes and a loop's cursor change while rendering.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/chat_template.h"

namespace gemmad::tmpl::internal {

enum class Type : uint8_t {
  kUndefined,
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kList,  // list, tuple, generator, dict views, range (see SeqKind)
  kDict,
  kNamespace,
  kCallable,
  kLoop,
};

// Which Python type a kList value stands for. It decides printing, len(), indexing and truth.
enum class SeqKind : uint8_t {
  kList,
  kTuple,
  kGenerator,  // map/select/... results: truthy even when empty, no len(), no indexing
  kDictItems,
  kDictKeys,
  kDictValues,
  kRange,
};

class Value;
struct Frame;
struct MacroDef;
struct ForStmt;

// Containers nest at most this deep (bounds the native recursion of printing, comparing,
// serialising and destroying values). Namespaces may not be stored inside containers or other
// namespaces, which rules out reference cycles and unbounded chains.
constexpr int kMaxValueDepth = 256;

// Thrown by container construction when a limit above is broken; turned into a template error
// at the render boundary.
struct ValueError {
  std::string message;
};

struct HeapObj {
  virtual ~HeapObj() = default;
};

struct StrObj : HeapObj {
  explicit StrObj(std::string v) : s(std::move(v)) {}
  std::string s;
};

struct UndefObj : HeapObj {
  explicit UndefObj(std::string h, bool unsafe_access = false)
      : hint(std::move(h)), unsafe(unsafe_access) {}
  std::string hint;  // e.g. "'x' is undefined"; used when the value is misused
  bool unsafe;       // produced by a sandbox-blocked attribute (calling it is a SecurityError)
};

class Value {
 public:
  Value() = default;  // Undefined without a name
  static Value Undefined(std::string hint, bool unsafe = false);
  static Value None() { return Value(Type::kNone); }
  static Value Bool(bool b) {
    Value v(Type::kBool);
    v.i_ = b ? 1 : 0;
    return v;
  }
  static Value Int(int64_t i) {
    Value v(Type::kInt);
    v.i_ = i;
    return v;
  }
  static Value Float(double f) {
    Value v(Type::kFloat);
    v.f_ = f;
    return v;
  }
  static Value Str(std::string s);
  static Value List(std::vector<Value> items, SeqKind kind = SeqKind::kList);
  static Value Tuple(std::vector<Value> items) { return List(std::move(items), SeqKind::kTuple); }
  static Value Range(int64_t start, int64_t stop, int64_t step, std::vector<Value> items);
  static Value Dict(std::vector<std::pair<Value, Value>> entries);
  // For entries whose keys are known to be distinct (JSON objects): skips the duplicate check.
  static Value DictUnique(std::vector<std::pair<Value, Value>> entries);
  static Value Namespace(std::vector<std::pair<std::string, Value>> attrs);
  static Value FromHeap(Type type, std::shared_ptr<HeapObj> obj) {
    Value v(type);
    v.obj_ = std::move(obj);
    return v;
  }

  Type type() const { return type_; }
  bool is_undefined() const { return type_ == Type::kUndefined; }
  bool is_none() const { return type_ == Type::kNone; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_list() const { return type_ == Type::kList; }
  bool is_dict() const { return type_ == Type::kDict; }
  // bool, int or float (Python numbers; bool is an int subclass).
  bool is_number() const {
    return type_ == Type::kBool || type_ == Type::kInt || type_ == Type::kFloat;
  }
  // bool or int.
  bool is_integral() const { return type_ == Type::kBool || type_ == Type::kInt; }

  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return i_; }  // valid for kBool and kInt
  double float_value() const { return f_; }
  double as_double() const { return type_ == Type::kFloat ? f_ : static_cast<double>(i_); }
  const std::string& str() const;
  const struct ListObj& list() const;
  SeqKind seq_kind() const;
  const struct DictObj& dict() const;
  struct NamespaceObj& ns() const;
  const struct CallableObj& callable() const;
  struct LoopObj& loop() const;
  const UndefObj* undef() const;
  const std::shared_ptr<HeapObj>& heap() const { return obj_; }

  // Python truthiness (Undefined is false; generators are always true).
  bool Truthy() const;

 private:
  explicit Value(Type t) : type_(t) {}
  Type type_ = Type::kUndefined;
  union {
    int64_t i_ = 0;
    double f_;
  };
  std::shared_ptr<HeapObj> obj_;
};

struct ListObj : HeapObj {
  std::vector<Value> items;
  int depth = 1;  // 1 + the deepest container among items
  SeqKind kind = SeqKind::kList;
  int64_t range_start = 0, range_stop = 0, range_step = 1;  // kRange only (for printing)
};

struct DictObj : HeapObj {
  std::vector<std::pair<Value, Value>> entries;  // insertion order, unique keys
  int depth = 1;
  // Index of string keys, built for larger dicts.
  std::vector<std::pair<std::string_view, uint32_t>> str_index;  // sorted by key
  const Value* Find(const Value& key) const;
  const Value* FindStr(std::string_view key) const;
};

struct NamespaceObj : HeapObj {
  std::vector<std::pair<std::string, Value>> attrs;
  Value* Find(std::string_view name);
  void Set(const std::string& name, Value v);
};

enum class CallableKind : uint8_t { kMacro, kBuiltin, kBoundMethod, kLoopRecurse, kCycler };

struct CallableObj : HeapObj {
  CallableKind kind = CallableKind::kBuiltin;
  std::string name;
  // kMacro: the definition and the frame it closes over; `caller` is set for call blocks.
  const MacroDef* macro = nullptr;
  std::shared_ptr<Frame> closure;
  Value caller;
  // kBuiltin: index into the global function table.
  int builtin = -1;
  // kBoundMethod: the receiver; `name` is the method name.
  Value self;
};

// The `loop` variable of a for loop; one per running loop, advanced in place.
struct LoopObj : HeapObj {
  const std::vector<Value>* items = nullptr;
  size_t index0 = 0;
  int depth0 = 0;
  const ForStmt* stmt = nullptr;          // for loop(...) in recursive loops
  std::shared_ptr<Frame> frame;           // frame the loop runs in (recursion)
  Value last_changed;                     // loop.changed() memory
  bool has_last_changed = false;
};

// Nesting depth a value adds to a container holding it (0 for scalars); throws ValueError for
// namespaces.
int ChildDepth(const Value& v);

// Python `==` (1 == 1.0 == True, [1] != (1,), Undefined == Undefined).
bool PyEquals(const Value& a, const Value& b);

// Converts request JSON into values (objects keep key order).
Value FromJson(const Json& j);

// Name of the Python type, for error messages ("int", "str", "dict", "NoneType", ...).
std::string_view PyTypeName(const Value& v);

}  // namespace gemmad::tmpl::internal
