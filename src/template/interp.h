// Interp: evaluates a Program against a context (one Interp per render; not thread-safe, but
// any number may run over the same Program at once). Runtime errors are thrown internally as
// TemplateError and turned into a Status at the Template::Render boundary; they never leave
// the module.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "template/ast.h"
#include "template/builtins.h"
#include "template/chat_template.h"
#include "template/value.h"

namespace gemmad::tmpl::internal {

struct TemplateError {
  uint32_t offset;
  std::string message;
};

// A variable scope. Frames chain to their parent (the enclosing scope; for a macro call, the
// scope the macro was defined in).
struct Frame {
  explicit Frame(std::shared_ptr<Frame> p) : parent(std::move(p)) {}
  std::shared_ptr<Frame> parent;
  std::vector<std::pair<int, Value>> vars;

  const Value* Find(int id) const {
    for (const Frame* f = this; f != nullptr; f = f->parent.get()) {
      for (const auto& v : f->vars) {
        if (v.first == id) return &v.second;
      }
    }
    return nullptr;
  }
  void Set(int id, Value value) {
    for (auto& v : vars) {
      if (v.first == id) {
        v.second = std::move(value);
        return;
      }
    }
    vars.emplace_back(id, std::move(value));
  }
};
using FramePtr = std::shared_ptr<Frame>;

class Interp {
 public:
  Interp(const Program& program, const TemplateRenderOptions& options);
  // Breaks the reference cycles macros and loops form with their scopes.
  ~Interp();
  Interp(const Interp&) = delete;
  Interp& operator=(const Interp&) = delete;
  uint32_t current_offset() const { return offset_; }

  // Renders the whole template; throws TemplateError.
  void Run(const Json& context, std::string* out);

  // Error helpers: the offset defaults to the node being evaluated.
  [[noreturn]] void Fail(const std::string& message) const;
  [[noreturn]] void FailAt(uint32_t offset, const std::string& message) const;
  // Errors for misusing an Undefined value ("'x' is undefined").
  [[noreturn]] void FailUndefined(const Value& v) const;
  void CheckSize(size_t num_bytes) const;
  // Native recursion depth bound: deep enough for any real template, shallow enough for a
  // 1 MiB thread stack.
  static constexpr int kMaxNesting = 600;
  struct NestingGuard {
    explicit NestingGuard(Interp& in) : in_(in) {
      if (++in_.nesting_ > kMaxNesting) in_.Fail("template recursion too deep");
    }
    ~NestingGuard() { --in_.nesting_; }
    Interp& in_;
  };
  void Step() {
    if (++steps_ > options_.limits.max_steps) Fail("template exceeded the step limit (possible infinite loop)");
  }
  const TemplateRenderOptions& options() const { return options_; }

  // Operations shared by expressions and builtins (ops.cc).
  Value GetAttr(const Value& obj, const std::string& name);
  Value GetItem(const Value& obj, const Value& key);
  Value Slice(const Value& obj, const Value& start, const Value& stop, const Value& step);
  // Items of an iterable (dict -> keys, str -> characters, Undefined -> empty).
  std::vector<Value> Iterate(const Value& v);
  Value Binary(BinOp op, const Value& l, const Value& r);
  bool Compare(CmpOp op, const Value& l, const Value& r);
  // Python `<` for sorting (raises for unorderable types).
  bool Less(const Value& a, const Value& b);
  bool Contains(const Value& container, const Value& item);
  int64_t Length(const Value& v);
  Value Invoke(const Value& callee, Args& args);
  std::string Str(const Value& v);
  // printf-style `%` formatting (str % args).
  std::string PercentFormat(const std::string& fmt, const Value& args);

  // Methods of str/dict/list/loop objects (methods.cc). Returns false when `name` is not a
  // method of that type.
  bool HasMethod(const Value& self, const std::string& name) const;
  Value CallMethod(const Value& self, const std::string& name, Args& args);

  // Applies a filter/test by name (used by map/select/reject).
  Value ApplyFilterByName(const std::string& name, const Value& input, Args& args);
  bool ApplyTestByName(const std::string& name, const Value& input, Args& args);

  // Renders a macro call (macro value `m`).
  Value CallMacro(const CallableObj& m, Args& args);

 private:
  enum class Flow { kNormal, kBreak, kContinue };
  Flow ExecBody(const Body& body, const FramePtr& frame, std::string& out);
  Flow ExecStmt(const Stmt& s, const FramePtr& frame, std::string& out);
  void ExecFor(const ForStmt& s, const FramePtr& frame, const Value& iterable, int depth,
               std::string& out);
  void Assign(const Target& t, const Value& v, Frame& frame);
  std::string RenderBody(const Body& body, const FramePtr& frame);
  Value ApplyFilterExpr(const Expr& f, const Value& input, Frame& frame);

  Value Eval(const Expr& e, Frame& frame);
  Value EvalInner(const Expr& e, Frame& frame);
  Value EvalName(const Expr& e, Frame& frame);
  Value EvalCall(const Expr& e, Frame& frame);
  Value EvalTest(const Expr& e, Frame& frame);
  void EvalArgs(const Expr& e, Frame& frame, Args* args);

  const Program& program_;
  const TemplateRenderOptions& options_;
  std::vector<int> global_of_name_;  // name id -> global function id or -1
  std::vector<Value> global_values_;  // name id -> the global's callable, made on first use
  int loop_name_id_ = -1;
  uint64_t steps_ = 0;
  int call_depth_ = 0;
  int nesting_ = 0;  // Eval/ExecBody recursion depth (bounds native stack use)
  // Objects holding scopes (macros, callers, loops), released at the end of the render.
  std::vector<std::shared_ptr<CallableObj>> closures_;
  std::vector<std::shared_ptr<LoopObj>> loops_;
  mutable uint32_t offset_ = 0;  // node being evaluated
};

// Builds a kString value from an std::string (kept short for call sites).
inline Value S(std::string s) { return Value::Str(std::move(s)); }

}  // namespace gemmad::tmpl::internal
