// Recursive-descent parser shared by parser.cc (statements) and parser_expr.cc (expressions).
// Grammar and operator precedence follow jinja2.parser (including its quirks: `**` is left
// associative and binds looser than unary minus, `~` sits between `+` and `*`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "template/ast.h"
#include "template/lexer.h"

namespace gemmad::tmpl::internal {

struct ParseError {
  uint32_t offset;
  std::string message;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, Program* program)
      : toks_(std::move(tokens)), program_(program) {}

  Body ParseTopLevel();

  // Expressions.
  ExprPtr ParseTuple(bool with_condexpr = true, bool explicit_parens = false,
                     std::vector<std::string> extra_end = {});
  ExprPtr ParseExpression(bool with_condexpr = true);

 private:
  friend class StmtParser;
  const Token& Cur() const { return toks_[pos_]; }
  const Token& Peek(size_t k = 1) const {
    return toks_[std::min(pos_ + k, toks_.size() - 1)];
  }
  void Next() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }
  bool IsOp(const char* op) const { return Cur().type == Tok::kOp && Cur().text == op; }
  bool IsName(const char* n) const { return Cur().type == Tok::kName && Cur().text == n; }
  bool SkipOp(const char* op) {
    if (!IsOp(op)) return false;
    Next();
    return true;
  }
  bool SkipName(const char* n) {
    if (!IsName(n)) return false;
    Next();
    return true;
  }
  void ExpectOp(const char* op);
  std::string ExpectName();
  void ExpectBlockEnd();
  [[noreturn]] void Fail(const std::string& msg) const { Fail(Cur().offset, msg); }
  [[noreturn]] void Fail(uint32_t offset, const std::string& msg) const;
  std::string Describe(const Token& t) const;
  int Intern(const std::string& name);
  void Enter();
  void Leave() { --depth_; }

  // Statements.
  Body ParseBody(const std::vector<std::string>& end_names, std::string* which);
  StmtPtr ParseStatement();
  StmtPtr ParseIf(uint32_t off);
  StmtPtr ParseFor(uint32_t off);
  StmtPtr ParseSet(uint32_t off);
  StmtPtr ParseMacro(uint32_t off);
  StmtPtr ParseCallBlock(uint32_t off);
  StmtPtr ParseFilterBlock(uint32_t off);
  StmtPtr ParseWith(uint32_t off);
  void ParseMacroSignature(MacroDef* def);
  Target ParseTarget(bool allow_tuple, const std::vector<std::string>& extra_end);
  void BindTargetNames(const Target& t);

  // Expressions.
  bool IsTupleEnd(const std::vector<std::string>& extra_end) const;
  ExprPtr ParseCondExpr();
  ExprPtr ParseOr();
  ExprPtr ParseAnd();
  ExprPtr ParseNot();
  ExprPtr ParseCompare();
  ExprPtr ParseMath1();
  ExprPtr ParseConcat();
  ExprPtr ParseMath2();
  ExprPtr ParsePow();
  ExprPtr ParseUnary(bool with_filter);
  ExprPtr ParsePrimary();
  ExprPtr ParsePostfix(ExprPtr node);
  ExprPtr ParseFilterExpr(ExprPtr node);
  ExprPtr ParseSubscript(ExprPtr node);
  ExprPtr ParseSubscribed();
  ExprPtr ParseCall(ExprPtr callee);
  void ParseCallArgs(Expr* call);
  ExprPtr ParseTest(ExprPtr node);
  ExprPtr ParseFilter(ExprPtr input);
  ExprPtr MakeName(const Token& t);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  Program* program_;
  std::map<std::string, int> name_ids_;
  int depth_ = 0;
  int loop_depth_ = 0;      // break/continue are valid only inside a for body
  int if_depth_ = 0;        // unknown filters/tests inside an if fail only when evaluated
  std::vector<MacroDef*> macros_;  // macros being parsed (innermost last)

 public:
  // Names read and names bound (for find_undeclared_variables-like reporting).
  std::vector<std::string> loaded_names;
  std::vector<std::string> bound_only_names;
  std::map<std::string, uint32_t> first_load;     // offset of the first read of a name
  std::map<std::string, uint32_t> first_assign;   // offset where the first `set` of it completes
  void NoteAssigned(const Target& t, uint32_t offset);
};

}  // namespace gemmad::tmpl::internal
