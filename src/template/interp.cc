// Statement execution: output, if/for (loop variable, else, filters, recursion, break/continue),
// set (names, tuples, namespace attributes, blocks), macros, call blocks, filter blocks, with.
// Scoping follows jinja2: a for body gets a fresh scope per iteration, a macro call gets a scope
// chained to where the macro was defined, `if` opens no scope.
#include "template/interp.h"

#include "template/lexer.h"
#include "template/py_format.h"

namespace gemmad::tmpl::internal {

Interp::Interp(const Program& program, const TemplateRenderOptions& options)
    : program_(program), options_(options) {
  global_of_name_.resize(program.names.size(), -1);
  global_values_.resize(program.names.size());
  for (size_t i = 0; i < program.names.size(); ++i) {
    global_of_name_[i] = FindGlobal(program.names[i]);
    if (program.names[i] == "loop") loop_name_id_ = static_cast<int>(i);
  }
}

Interp::~Interp() {
  for (auto& c : closures_) {
    c->closure.reset();
    c->caller = Value();
  }
  for (auto& l : loops_) l->frame.reset();
}

void Interp::Fail(const std::string& message) const { throw TemplateError{offset_, message}; }
void Interp::FailAt(uint32_t offset, const std::string& message) const {
  throw TemplateError{offset, message};
}

void Interp::FailUndefined(const Value& v) const {
  const UndefObj* u = v.undef();
  if (u != nullptr && !u->hint.empty()) Fail(u->hint);
  Fail("undefined value");
}

void Interp::CheckSize(size_t num_bytes) const {
  if (num_bytes > options_.limits.max_output_bytes) {
    Fail("template output exceeds the limit of " + std::to_string(options_.limits.max_output_bytes) +
         " bytes");
  }
}

void Interp::Run(const Json& context, std::string* out) {
  auto root = std::make_shared<Frame>(nullptr);
  if (context.is_object()) {
    for (size_t id = 0; id < program_.names.size(); ++id) {
      auto it = context.find(program_.names[id]);
      if (it != context.end()) root->vars.emplace_back(static_cast<int>(id), FromJson(*it));
    }
  }
  ExecBody(program_.body, root, *out);
}

Interp::Flow Interp::ExecBody(const Body& body, const FramePtr& frame, std::string& out) {
  NestingGuard guard(*this);
  for (const auto& s : body) {
    Flow f = ExecStmt(*s, frame, out);
    if (f != Flow::kNormal) return f;
  }
  return Flow::kNormal;
}

std::string Interp::RenderBody(const Body& body, const FramePtr& frame) {
  std::string text;
  ExecBody(body, frame, text);
  return text;
}

void Interp::Assign(const Target& t, const Value& v, Frame& frame) {
  if (t.items.empty()) {
    frame.Set(t.name_id, v);
    return;
  }
  std::vector<Value> items = Iterate(v);
  if (items.size() != t.items.size()) {
    Fail(items.size() > t.items.size()
             ? "too many values to unpack (expected " + std::to_string(t.items.size()) + ")"
             : "not enough values to unpack (expected " + std::to_string(t.items.size()) +
                   ", got " + std::to_string(items.size()) + ")");
  }
  for (size_t i = 0; i < items.size(); ++i) Assign(t.items[i], items[i], frame);
}

Value Interp::ApplyFilterExpr(const Expr& f, const Value& input, Frame& frame) {
  offset_ = f.offset;
  if (f.callee < 0) Fail("no filter named '" + f.name + "'");
  Args args;
  EvalArgs(f, frame, &args);
  offset_ = f.offset;
  return GetFilter(f.callee)(*this, input, args);
}

void Interp::ExecFor(const ForStmt& s, const FramePtr& frame, const Value& iterable, int depth,
                     std::string& out) {
  // Lists are iterated in place (the Value keeps them alive); other iterables are materialised.
  std::vector<Value> materialised;
  const std::vector<Value>* items_ptr;
  if (iterable.is_list() && !s.filter) {
    items_ptr = &iterable.list().items;
  } else {
    materialised = Iterate(iterable);
    items_ptr = &materialised;
  }
  if (s.filter) {
    std::vector<Value> kept;
    for (auto& item : materialised) {
      Step();
      Frame probe(frame);
      Assign(s.target, item, probe);
      if (Eval(*s.filter, probe).Truthy()) kept.push_back(std::move(item));
    }
    materialised = std::move(kept);
  }
  const std::vector<Value>& items = *items_ptr;
  auto loop = std::make_shared<LoopObj>();
  loops_.push_back(loop);
  loop->items = &items;
  loop->depth0 = depth;
  loop->stmt = &s;
  loop->frame = frame;
  Value loop_value = Value::FromHeap(Type::kLoop, loop);
  for (size_t i = 0; i < items.size(); ++i) {
    Step();
    auto iter_frame = std::make_shared<Frame>(frame);
    offset_ = s.offset;
    Assign(s.target, items[i], *iter_frame);
    if (loop_name_id_ >= 0) iter_frame->vars.emplace_back(loop_name_id_, loop_value);
    loop->index0 = i;
    if (ExecBody(s.body, iter_frame, out) == Flow::kBreak) break;
  }
  loop->items = nullptr;  // `items` dies here; a captured loop object must not point at it
  if (items.empty()) ExecBody(s.else_body, frame, out);
}

Interp::Flow Interp::ExecStmt(const Stmt& st, const FramePtr& frame, std::string& out) {
  offset_ = st.offset;
  switch (st.kind) {
    case StmtKind::kOutput:
      out.append(static_cast<const OutputStmt&>(st).text);
      CheckSize(out.size());
      return Flow::kNormal;
    case StmtKind::kPrint: {
      Value v = Eval(*static_cast<const PrintStmt&>(st).expr, *frame);
      AppendPyStr(out, v);
      CheckSize(out.size());
      return Flow::kNormal;
    }
    case StmtKind::kIf: {
      const auto& s = static_cast<const IfStmt&>(st);
      for (size_t i = 0; i < s.conds.size(); ++i) {
        if (Eval(*s.conds[i], *frame).Truthy()) return ExecBody(s.bodies[i], frame, out);
      }
      return ExecBody(s.else_body, frame, out);
    }
    case StmtKind::kFor: {
      const auto& s = static_cast<const ForStmt&>(st);
      Value iterable = Eval(*s.iter, *frame);
      ExecFor(s, frame, iterable, 0, out);
      return Flow::kNormal;
    }
    case StmtKind::kSet: {
      const auto& s = static_cast<const SetStmt&>(st);
      Value v = Eval(*s.value, *frame);
      offset_ = st.offset;
      Assign(s.target, v, *frame);
      return Flow::kNormal;
    }
    case StmtKind::kSetAttr: {
      const auto& s = static_cast<const SetAttrStmt&>(st);
      const Value* ns = frame->Find(s.ns_id);
      if (ns == nullptr || ns->type() != Type::kNamespace) {
        Fail("cannot assign attribute '" + s.attr + "' on non-namespace object '" + s.ns_name + "'");
      }
      Value v = Eval(*s.value, *frame);
      if (!s.attr.empty() && s.attr[0] == '_') {
        FailAt(st.offset, "namespaces cannot store underscore-prefixed attributes ('" + s.attr + "')");
      }
      ns->ns().Set(s.attr, std::move(v));
      return Flow::kNormal;
    }
    case StmtKind::kSetBlock: {
      const auto& s = static_cast<const SetBlockStmt&>(st);
      Value v = S(RenderBody(s.body, std::make_shared<Frame>(frame)));
      for (const auto& f : s.filters) v = ApplyFilterExpr(*f, v, *frame);
      offset_ = st.offset;
      Assign(s.target, v, *frame);
      return Flow::kNormal;
    }
    case StmtKind::kMacro: {
      const auto& s = static_cast<const MacroStmt&>(st);
      auto m = std::make_shared<CallableObj>();
      m->kind = CallableKind::kMacro;
      m->name = s.def.name;
      m->macro = &s.def;
      m->closure = frame;
      closures_.push_back(m);
      frame->Set(s.name_id, Value::FromHeap(Type::kCallable, std::move(m)));
      return Flow::kNormal;
    }
    case StmtKind::kCallBlock: {
      const auto& s = static_cast<const CallBlockStmt&>(st);
      auto caller = std::make_shared<CallableObj>();
      caller->kind = CallableKind::kMacro;
      caller->name = "caller";
      caller->macro = &s.caller;
      caller->closure = frame;
      closures_.push_back(caller);
      const Expr& call = *s.call;
      offset_ = call.offset;
      Value callee = Eval(*call.a, *frame);
      Args args;
      EvalArgs(call, *frame, &args);
      args.kw.emplace_back("caller", Value::FromHeap(Type::kCallable, std::move(caller)));
      offset_ = call.offset;
      AppendPyStr(out, Invoke(callee, args));
      CheckSize(out.size());
      return Flow::kNormal;
    }
    case StmtKind::kFilterBlock: {
      const auto& s = static_cast<const FilterBlockStmt&>(st);
      Value v = S(RenderBody(s.body, std::make_shared<Frame>(frame)));
      for (const auto& f : s.filters) v = ApplyFilterExpr(*f, v, *frame);
      AppendPyStr(out, v);
      CheckSize(out.size());
      return Flow::kNormal;
    }
    case StmtKind::kBreak:
      return Flow::kBreak;
    case StmtKind::kContinue:
      return Flow::kContinue;
    case StmtKind::kWith: {
      const auto& s = static_cast<const WithStmt&>(st);
      auto inner = std::make_shared<Frame>(frame);
      for (size_t i = 0; i < s.targets.size(); ++i) {
        Value v = Eval(*s.values[i], *frame);
        Assign(s.targets[i], v, *inner);
      }
      return ExecBody(s.body, inner, out);
    }
    case StmtKind::kScope: {
      const auto& s = static_cast<const ScopeStmt&>(st);
      return ExecBody(s.body, std::make_shared<Frame>(frame), out);
    }
  }
  return Flow::kNormal;
}

Value Interp::CallMacro(const CallableObj& m, Args& args) {
  const MacroDef& def = *m.macro;
  if (++call_depth_ > options_.limits.max_call_depth) {
    Fail("maximum macro recursion depth exceeded (" +
         std::to_string(options_.limits.max_call_depth) + ")");
  }
  auto frame = std::make_shared<Frame>(m.closure);
  std::vector<bool> given(def.params.size(), false);
  size_t npos = std::min(args.pos.size(), def.params.size());
  for (size_t i = 0; i < npos; ++i) {
    frame->vars.emplace_back(def.params[i].name_id, args.pos[i]);
    given[i] = true;
  }
  std::vector<Value> varargs(args.pos.begin() + static_cast<long>(npos), args.pos.end());
  if (!varargs.empty() && !def.uses_varargs) {
    Fail("macro '" + def.name + "' takes not more than " + std::to_string(def.params.size()) +
         " argument(s)");
  }
  std::vector<std::pair<Value, Value>> extra_kwargs;
  Value caller;
  for (auto& [key, value] : args.kw) {
    size_t i = 0;
    while (i < def.params.size() && def.params[i].name != key) ++i;
    if (i < def.params.size()) {
      if (given[i]) Fail("macro '" + def.name + "' got multiple values for argument '" + key + "'");
      frame->vars.emplace_back(def.params[i].name_id, value);
      given[i] = true;
    } else if (key == "caller" && value.type() == Type::kCallable) {
      caller = value;
    } else if (def.uses_kwargs) {
      extra_kwargs.emplace_back(S(key), value);
    } else {
      Fail("macro '" + def.name + "' takes no keyword argument '" + key + "'");
    }
  }
  for (size_t i = 0; i < def.params.size(); ++i) {
    if (given[i]) continue;
    const MacroParam& p = def.params[i];
    frame->vars.emplace_back(p.name_id,
                             p.default_value ? Eval(*p.default_value, *frame)
                                             : Value::Undefined("parameter '" + p.name + "' was not provided"));
  }
  auto bind = [&](const char* name, Value v) {
    for (size_t id = 0; id < program_.names.size(); ++id) {
      if (program_.names[id] == name) {
        frame->vars.emplace_back(static_cast<int>(id), std::move(v));
        return;
      }
    }
  };
  if (def.uses_varargs) bind("varargs", Value::Tuple(std::move(varargs)));
  if (def.uses_kwargs) bind("kwargs", Value::Dict(std::move(extra_kwargs)));
  if (def.uses_caller) {
    bind("caller", caller.type() == Type::kCallable
                       ? caller
                       : Value::Undefined("No caller defined"));
  }
  std::string text = RenderBody(def.body, frame);
  --call_depth_;
  return S(std::move(text));
}

}  // namespace gemmad::tmpl::internal
