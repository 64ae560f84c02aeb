// Expression evaluation: names (context, scopes, globals), literals, attribute/item access,
// slices, calls (macros, globals, methods), filters, tests, operators, short-circuit logic,
// inline if and `~` concatenation.
#include "template/interp.h"
#include "template/py_format.h"

namespace gemmad::tmpl::internal {

Value Interp::EvalName(const Expr& e, Frame& frame) {
  if (const Value* v = frame.Find(e.name_id)) return *v;
  const size_t id = static_cast<size_t>(e.name_id);
  int g = global_of_name_[id];
  if (g >= 0) {
    if (global_values_[id].type() != Type::kCallable) {
      auto c = std::make_shared<CallableObj>();
      c->kind = CallableKind::kBuiltin;
      c->builtin = g;
      c->name = e.name;
      global_values_[id] = Value::FromHeap(Type::kCallable, std::move(c));
    }
    return global_values_[id];
  }
  return Value::Undefined("'" + e.name + "' is undefined");
}

void Interp::EvalArgs(const Expr& e, Frame& frame, Args* args) {
  args->pos.reserve(e.items.size());
  for (const auto& a : e.items) args->pos.push_back(Eval(*a, frame));
  if (e.star_args) {
    Value extra = Eval(*e.star_args, frame);
    for (auto& v : Iterate(extra)) args->pos.push_back(std::move(v));
  }
  for (const auto& kw : e.kwargs) args->kw.emplace_back(kw.name, Eval(*kw.value, frame));
  if (e.star_kwargs) {
    Value extra = Eval(*e.star_kwargs, frame);
    if (!extra.is_dict()) Fail("argument after ** must be a mapping");
    for (const auto& [k, v] : extra.dict().entries) {
      if (!k.is_string()) Fail("keywords must be strings");
      args->kw.emplace_back(k.str(), v);
    }
  }
}

Value Interp::EvalCall(const Expr& e, Frame& frame) {
  const Expr& callee = *e.a;
  if (callee.kind == ExprKind::kGetattr) {
    Value self = Eval(*callee.a, frame);
    offset_ = callee.offset;
    if (HasMethod(self, callee.name)) {
      Args args;
      EvalArgs(e, frame, &args);
      offset_ = e.offset;
      return CallMethod(self, callee.name, args);
    }
    Value fn = GetAttr(self, callee.name);
    Args args;
    EvalArgs(e, frame, &args);
    offset_ = e.offset;
    return Invoke(fn, args);
  }
  Value fn = Eval(callee, frame);
  Args args;
  EvalArgs(e, frame, &args);
  offset_ = e.offset;
  return Invoke(fn, args);
}

Value Interp::EvalTest(const Expr& e, Frame& frame) {
  Value input = Eval(*e.a, frame);
  Args args;
  EvalArgs(e, frame, &args);
  offset_ = e.offset;
  if (e.callee < 0) Fail("no test named '" + e.name + "'");
  bool r = GetTest(e.callee)(*this, input, args);
  return Value::Bool(e.negated ? !r : r);
}

Value Interp::Eval(const Expr& e, Frame& frame) {
  if (e.kind == ExprKind::kConst) return e.value;
  NestingGuard guard(*this);
  return EvalInner(e, frame);
}

Value Interp::EvalInner(const Expr& e, Frame& frame) {
  Step();
  offset_ = e.offset;
  switch (e.kind) {
    case ExprKind::kConst:
      return e.value;
    case ExprKind::kName:
      return EvalName(e, frame);
    case ExprKind::kList:
    case ExprKind::kTuple: {
      std::vector<Value> items;
      items.reserve(e.items.size());
      for (const auto& it : e.items) items.push_back(Eval(*it, frame));
      return Value::List(std::move(items),
                         e.kind == ExprKind::kList ? SeqKind::kList : SeqKind::kTuple);
    }
    case ExprKind::kDict: {
      std::vector<std::pair<Value, Value>> entries;
      for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
        Value k = Eval(*e.items[i], frame);
        if (k.type() == Type::kList && k.seq_kind() != SeqKind::kTuple) {
          offset_ = e.items[i]->offset;
          Fail("unhashable type: '" + std::string(PyTypeName(k)) + "'");
        }
        if (k.is_dict() || k.is_undefined()) {
          offset_ = e.items[i]->offset;
          Fail(k.is_dict() ? "unhashable type: 'dict'" : "unhashable type: 'Undefined'");
        }
        entries.emplace_back(std::move(k), Eval(*e.items[i + 1], frame));
      }
      return Value::Dict(std::move(entries));
    }
    case ExprKind::kGetattr: {
      Value obj = Eval(*e.a, frame);
      offset_ = e.offset;
      return GetAttr(obj, e.name);
    }
    case ExprKind::kGetitem: {
      Value obj = Eval(*e.a, frame);
      Value key = Eval(*e.b, frame);
      offset_ = e.offset;
      return GetItem(obj, key);
    }
    case ExprKind::kSlice: {
      if (!e.a) {
        // A slice inside a tuple subscript (x[1:2, 3]): Python builds slice objects that no
        // sandboxed lookup accepts, so the lookup ends as Undefined.
        for (const ExprPtr* part : {&e.b, &e.c, &e.d}) {
          if (*part) Eval(**part, frame);
        }
        return Value::Undefined("slice objects are not supported as keys");
      }
      Value obj = Eval(*e.a, frame);
      Value start = e.b ? Eval(*e.b, frame) : Value::None();
      Value stop = e.c ? Eval(*e.c, frame) : Value::None();
      Value step = e.d ? Eval(*e.d, frame) : Value::None();
      offset_ = e.offset;
      return Slice(obj, start, stop, step);
    }
    case ExprKind::kCall:
      return EvalCall(e, frame);
    case ExprKind::kFilter: {
      Value input = Eval(*e.a, frame);
      return ApplyFilterExpr(e, input, frame);
    }
    case ExprKind::kTest:
      return EvalTest(e, frame);
    case ExprKind::kUnary: {
      Value v = Eval(*e.a, frame);
      offset_ = e.offset;
      if (v.is_undefined()) FailUndefined(v);
      if (!v.is_number()) {
        Fail(std::string("bad operand type for unary ") + (e.op == BinOp::kSub ? "-" : "+") +
             ": '" + std::string(PyTypeName(v)) + "'");
      }
      if (e.op == BinOp::kAdd) return v.type() == Type::kBool ? Value::Int(v.int_value()) : v;
      if (v.type() == Type::kFloat) return Value::Float(-v.float_value());
      if (v.int_value() == INT64_MIN) Fail("integer overflow");
      return Value::Int(-v.int_value());
    }
    case ExprKind::kBinary: {
      Value l = Eval(*e.a, frame);
      Value r = Eval(*e.b, frame);
      offset_ = e.offset;
      return Binary(e.op, l, r);
    }
    case ExprKind::kCompare: {
      Value left = Eval(*e.items[0], frame);
      for (size_t i = 0; i < e.cmp_ops.size(); ++i) {
        Value right = Eval(*e.items[i + 1], frame);
        offset_ = e.offset;
        if (!Compare(e.cmp_ops[i], left, right)) return Value::Bool(false);
        left = std::move(right);
      }
      return Value::Bool(true);
    }
    case ExprKind::kAnd: {
      Value l = Eval(*e.a, frame);
      if (!l.Truthy()) return l;
      return Eval(*e.b, frame);
    }
    case ExprKind::kOr: {
      Value l = Eval(*e.a, frame);
      if (l.Truthy()) return l;
      return Eval(*e.b, frame);
    }
    case ExprKind::kNot:
      return Value::Bool(!Eval(*e.a, frame).Truthy());
    case ExprKind::kCond: {
      if (Eval(*e.a, frame).Truthy()) return Eval(*e.b, frame);
      if (e.c) return Eval(*e.c, frame);
      return Value::Undefined("the inline if-expression evaluated to false and no else section was defined");
    }
    case ExprKind::kConcat: {
      std::string s;
      for (const auto& it : e.items) {
        AppendPyStr(s, Eval(*it, frame));
        CheckSize(s.size());
      }
      return S(std::move(s));
    }
  }
  return Value();
}

}  // namespace gemmad::tmpl::internal

