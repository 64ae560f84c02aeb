// Template: compile (lex + parse) and render (interpret) with errors as Status values, plus
// vLLM's content-format detection over the AST (does the template loop over
// message['content']?).
#include <algorithm>
#include <cctype>
#include <exception>
#include <functional>
#include <set>

#include "template/ast.h"
#include "template/chat_template.h"
#include "template/interp.h"
#include "template/lexer.h"
#include "template/parser.h"
#include "template/value.h"

namespace gemmad::tmpl {
namespace {

using internal::Expr;
using internal::ExprKind;
using internal::Stmt;
using internal::StmtKind;

void WalkStmts(const internal::Body& body, const std::function<void(const Stmt&)>& fn) {
  for (const auto& s : body) {
    fn(*s);
    switch (s->kind) {
      case StmtKind::kIf: {
        const auto& x = static_cast<const internal::IfStmt&>(*s);
        for (const auto& b : x.bodies) WalkStmts(b, fn);
        WalkStmts(x.else_body, fn);
        break;
      }
      case StmtKind::kFor: {
        const auto& x = static_cast<const internal::ForStmt&>(*s);
        WalkStmts(x.body, fn);
        WalkStmts(x.else_body, fn);
        break;
      }
      case StmtKind::kSetBlock: WalkStmts(static_cast<const internal::SetBlockStmt&>(*s).body, fn); break;
      case StmtKind::kMacro: WalkStmts(static_cast<const internal::MacroStmt&>(*s).def.body, fn); break;
      case StmtKind::kCallBlock: WalkStmts(static_cast<const internal::CallBlockStmt&>(*s).caller.body, fn); break;
      case StmtKind::kFilterBlock: WalkStmts(static_cast<const internal::FilterBlockStmt&>(*s).body, fn); break;
      case StmtKind::kWith: WalkStmts(static_cast<const internal::WithStmt&>(*s).body, fn); break;
      case StmtKind::kScope: WalkStmts(static_cast<const internal::ScopeStmt&>(*s).body, fn); break;
      default: break;
    }
  }
}

bool IsVarAccess(const Expr* e, const std::string& var) {
  return e != nullptr && e->kind == ExprKind::kName && e->name == var;
}

// vLLM's _is_var_or_elems_access: `var`, or var[key]/var.key, seen through filters, tests and
// slices.
bool IsVarOrElemsAccess(const Expr* e, const std::string& var, const std::string* key) {
  if (e == nullptr) return false;
  if (e->kind == ExprKind::kFilter || e->kind == ExprKind::kTest || e->kind == ExprKind::kSlice) {
    return IsVarOrElemsAccess(e->a.get(), var, key);
  }
  if (key == nullptr) return IsVarAccess(e, var);
  if (e->kind == ExprKind::kGetitem) {
    return IsVarAccess(e->a.get(), var) && e->b->kind == ExprKind::kConst && e->b->value.is_string() &&
           e->b->value.str() == *key;
  }
  if (e->kind == ExprKind::kGetattr) return IsVarAccess(e->a.get(), var) && e->name == *key;
  return false;
}

bool DetectContentIteration(const internal::Program& p) {
  std::vector<const internal::SetStmt*> assigns;
  std::vector<const internal::ForStmt*> loops;
  WalkStmts(p.body, [&](const Stmt& s) {
    if (s.kind == StmtKind::kSet) assigns.push_back(static_cast<const internal::SetStmt*>(&s));
    if (s.kind == StmtKind::kFor) loops.push_back(static_cast<const internal::ForStmt*>(&s));
  });
  // Names bound (transitively) to `messages` or slices/filters of it.
  std::vector<std::string> messages_vars = {"messages"};
  for (size_t i = 0; i < messages_vars.size() && i < 64; ++i) {
    for (const auto* a : assigns) {
      if (!IsVarOrElemsAccess(a->value.get(), messages_vars[i], nullptr)) continue;
      if (!a->target.items.empty()) return false;  // vLLM's detection gives up ("string")
      if (a->target.name != messages_vars[i]) messages_vars.push_back(a->target.name);
    }
  }
  std::vector<std::string> message_vars;
  for (const auto* f : loops) {
    for (const auto& v : messages_vars) {
      if (IsVarOrElemsAccess(f->iter.get(), v, nullptr)) {
        if (!f->target.items.empty()) return false;
        message_vars.push_back(f->target.name);
        break;
      }
    }
  }
  static const std::string kContent = "content";
  for (const auto* f : loops) {
    for (const auto& v : message_vars) {
      if (IsVarOrElemsAccess(f->iter.get(), v, &kContent)) return true;
    }
  }
  return false;
}

}  // namespace

Result<Template> Template::Compile(std::string_view source, std::string_view name) {
  auto program = internal::ParseTemplate(source, name);
  if (!program.ok()) return program.status();
  std::shared_ptr<internal::Program> p = std::move(program).value();
  p->iterates_message_content = DetectContentIteration(*p);
  return Template(std::shared_ptr<const internal::Program>(std::move(p)));
}

Result<std::string> Template::Render(const Json& context, const TemplateRenderOptions& options) const {
  if (!program_) return InvalidArgumentError("template: rendering a template that was never compiled");
  if (!context.is_object()) return InvalidArgumentError(program_->name + ": the context must be a JSON object");
  if (Status depth = CheckJsonDepth(context, program_->name + ": context"); !depth.ok()) return depth;
  std::string out;
  internal::Interp interp(*program_, options);
  try {
    interp.Run(context, &out);
  } catch (const internal::TemplateError& e) {
    internal::SourceMap map(program_->normalised_source);
    return InvalidArgumentError(program_->name + ":" + map.Position(e.offset) + ": " + e.message);
  } catch (const internal::ValueError& e) {
    internal::SourceMap map(program_->normalised_source);
    return InvalidArgumentError(program_->name + ":" + map.Position(interp.current_offset()) + ": " +
                                e.message);
  } catch (const std::exception& e) {
    return InvalidArgumentError(program_->name + ": template rendering failed: " + e.what());
  }
  return out;
}

const std::string& Template::source() const {
  static const std::string* empty = new std::string();
  return program_ ? program_->source : *empty;
}
const std::string& Template::name() const {
  static const std::string* empty = new std::string();
  return program_ ? program_->name : *empty;
}
std::string_view Template::WithoutLocation(std::string_view message) const {
  const std::string& n = name();
  if (message.size() <= n.size() || message.substr(0, n.size()) != n || message[n.size()] != ':') return message;
  size_t i = n.size() + 1;
  int colons = 0;
  while (i < message.size() && (std::isdigit(static_cast<unsigned char>(message[i])) || message[i] == ':')) {
    colons += message[i] == ':';
    ++i;
  }
  // "<line>:<column>: " leaves i at the space after the second colon.
  if (colons != 2 || i >= message.size() || message[i] != ' ' || message[i - 1] != ':') return message;
  return message.substr(i + 1);
}

const std::vector<std::string>& Template::undeclared_variables() const {
  static const std::vector<std::string>* empty = new std::vector<std::string>();
  return program_ ? program_->undeclared : *empty;
}
bool Template::iterates_message_content() const {
  return program_ && program_->iterates_message_content;
}

Status CheckJsonDepth(const Json& value, const std::string& what) {
  // Iterative: the point is to reject inputs before anything recursive touches them.
  std::vector<std::pair<const Json*, int>> stack = {{&value, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    if (depth > internal::kMaxValueDepth - 8) {
      return InvalidArgumentError(what + ": JSON nested deeper than " +
                                  std::to_string(internal::kMaxValueDepth - 8) + " levels");
    }
    for (const auto& child : *node) {
      if (child.is_structured()) stack.emplace_back(&child, depth + 1);
    }
  }
  return OkStatus();
}

bool Template::ReadsVariable(std::string_view variable) const {
  if (!program_) return false;
  return std::binary_search(program_->loaded.begin(), program_->loaded.end(), variable);
}

Result<ContentFormat> ParseContentFormat(std::string_view name) {
  if (name == "auto") return ContentFormat::kAuto;
  if (name == "string") return ContentFormat::kString;
  if (name == "openai") return ContentFormat::kOpenAI;
  return InvalidArgumentError("--chat-template-content-format: expected auto, string or openai, got '" +
                              std::string(name) + "'");
}

}  // namespace gemmad::tmpl
