// AST of a parsed template. Nodes are immutable after parsing; every node keeps the byte offset
// of its first token for "line:column" error messages. Names are interned to small integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "template/value.h"

namespace gemmad::tmpl::internal {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class ExprKind : uint8_t {
  kConst,
  kName,
  kList,
  kTuple,
  kDict,
  kGetattr,
  kGetitem,
  kSlice,
  kCall,
  kFilter,
  kTest,
  kUnary,
  kBinary,
  kCompare,
  kAnd,
  kOr,
  kNot,
  kCond,
  kConcat,
};

enum class BinOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };
enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

struct Kwarg {
  std::string name;
  ExprPtr value;
};

struct Expr {
  ExprKind kind;
  uint32_t offset = 0;
  Value value;                 // kConst
  int name_id = -1;            // kName
  std::string name;            // kName (text), kGetattr attribute, kFilter/kTest name
  ExprPtr a, b, c, d;          // operands: object, key/start, stop, step / left, right / cond
  std::vector<ExprPtr> items;  // list/tuple/dict keys+values interleaved, call args, compare operands
  std::vector<Kwarg> kwargs;   // call/filter/test keyword arguments
  std::vector<CmpOp> cmp_ops;  // kCompare
  BinOp op = BinOp::kAdd;      // kBinary; kUnary uses kSub for negation, kAdd for plus
  int callee = -1;             // kFilter/kTest: index into the builtin table
  bool negated = false;        // kTest: `is not`
  ExprPtr star_args, star_kwargs;  // kCall: *args, **kwargs

  Expr(ExprKind k, uint32_t off) : kind(k), offset(off) {}
};

enum class StmtKind : uint8_t {
  kOutput,   // literal template data
  kPrint,    // {{ expr }}
  kIf,
  kFor,
  kSet,       // {% set targets = expr %}
  kSetAttr,   // {% set ns.attr = expr %}
  kSetBlock,  // {% set x %}...{% endset %}
  kMacro,
  kCallBlock,
  kFilterBlock,
  kBreak,
  kContinue,
  kWith,
  kScope,  // a plain body (e.g. {% generation %})
};

// A for/set target: a name or a (nested) tuple of names.
struct Target {
  int name_id = -1;
  std::string name;
  std::vector<Target> items;  // non-empty for tuple unpacking
};

struct MacroParam {
  int name_id;
  std::string name;
  ExprPtr default_value;  // may be null
};

struct MacroDef {
  std::string name;
  std::vector<MacroParam> params;
  Body body;
  bool uses_caller = false, uses_varargs = false, uses_kwargs = false;
  uint32_t offset = 0;
};

struct Stmt {
  StmtKind kind;
  uint32_t offset = 0;
  explicit Stmt(StmtKind k, uint32_t off) : kind(k), offset(off) {}
  virtual ~Stmt() = default;
};

struct OutputStmt : Stmt {
  OutputStmt(uint32_t off, std::string t) : Stmt(StmtKind::kOutput, off), text(std::move(t)) {}
  std::string text;
};
struct PrintStmt : Stmt {
  PrintStmt(uint32_t off, ExprPtr e) : Stmt(StmtKind::kPrint, off), expr(std::move(e)) {}
  ExprPtr expr;
};
struct IfStmt : Stmt {
  explicit IfStmt(uint32_t off) : Stmt(StmtKind::kIf, off) {}
  std::vector<ExprPtr> conds;  // if, elif...
  std::vector<Body> bodies;    // one per cond
  Body else_body;
};
struct ForStmt : Stmt {
  explicit ForStmt(uint32_t off) : Stmt(StmtKind::kFor, off) {}
  Target target;
  ExprPtr iter;
  ExprPtr filter;  // `for x in y if cond`
  Body body, else_body;
  bool recursive = false;
};
struct SetStmt : Stmt {
  explicit SetStmt(uint32_t off) : Stmt(StmtKind::kSet, off) {}
  Target target;
  ExprPtr value;
};
struct SetAttrStmt : Stmt {
  explicit SetAttrStmt(uint32_t off) : Stmt(StmtKind::kSetAttr, off) {}
  int ns_id = -1;
  std::string ns_name, attr;
  ExprPtr value;
};
// Filters applied to a block's rendered text: each is a kFilter Expr whose input (`a`) is null.
struct SetBlockStmt : Stmt {
  explicit SetBlockStmt(uint32_t off) : Stmt(StmtKind::kSetBlock, off) {}
  Target target;
  std::vector<ExprPtr> filters;
  Body body;
};
struct MacroStmt : Stmt {
  explicit MacroStmt(uint32_t off) : Stmt(StmtKind::kMacro, off) {}
  int name_id = -1;
  MacroDef def;
};
struct CallBlockStmt : Stmt {
  explicit CallBlockStmt(uint32_t off) : Stmt(StmtKind::kCallBlock, off) {}
  ExprPtr call;     // kCall
  MacroDef caller;  // the body as an anonymous macro named "caller"
};
struct FilterBlockStmt : Stmt {
  explicit FilterBlockStmt(uint32_t off) : Stmt(StmtKind::kFilterBlock, off) {}
  std::vector<ExprPtr> filters;
  Body body;
};
struct WithStmt : Stmt {
  explicit WithStmt(uint32_t off) : Stmt(StmtKind::kWith, off) {}
  std::vector<Target> targets;
  std::vector<ExprPtr> values;
  Body body;
};
struct ScopeStmt : Stmt {
  explicit ScopeStmt(uint32_t off) : Stmt(StmtKind::kScope, off) {}
  Body body;
};

// The whole template: top-level body, interned names, source for positions.
struct Program {
  std::string name;
  std::string source;             // as given
  std::string normalised_source;  // what offsets refer to
  Body body;
  std::vector<std::string> names;  // name_id -> text
  std::vector<std::string> undeclared;  // approximates jinja2.meta.find_undeclared_variables
  std::vector<std::string> loaded;      // every variable name the template reads (sorted)
  bool iterates_message_content = false;
};

}  // namespace gemmad::tmpl::internal
