// Statement parsing ({% if %}, {% for %}, {% set %}, {% macro %}, {% call %}, {% filter %},
// {% with %}, {% generation %}, break/continue) and the parser entry point.
#include "template/parser.h"

#include <algorithm>
#include <set>

#include "template/builtins.h"
#include "template/parser_impl.h"

namespace gemmad::tmpl::internal {
namespace {

std::string JoinQuoted(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += i + 1 == names.size() ? " or " : ", ";
    s += "'" + names[i] + "'";
  }
  return s;
}

bool IsReservedConstName(const std::string& n) {
  return n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None";
}

}  // namespace

void Parser::Fail(uint32_t offset, const std::string& msg) const { throw ParseError{offset, msg}; }

std::string Parser::Describe(const Token& t) const {
  switch (t.type) {
    case Tok::kEof: return "end of template";
    case Tok::kVarEnd: return "end of print statement";
    case Tok::kBlockEnd: return "end of statement block";
    case Tok::kData: return "template data";
    case Tok::kVarBegin: return "begin of print statement";
    case Tok::kBlockBegin: return "begin of statement block";
    case Tok::kString: return "string";
    case Tok::kInt: return "integer";
    case Tok::kFloat: return "float";
    default: return "'" + t.text + "'";
  }
}

void Parser::ExpectOp(const char* op) {
  if (!SkipOp(op)) Fail(std::string("expected '") + op + "', got " + Describe(Cur()));
}

std::string Parser::ExpectName() {
  if (Cur().type != Tok::kName) Fail("expected a name, got " + Describe(Cur()));
  std::string n = Cur().text;
  Next();
  return n;
}

void Parser::ExpectBlockEnd() {
  if (Cur().type != Tok::kBlockEnd) Fail("expected end of statement block, got " + Describe(Cur()));
  Next();
}

int Parser::Intern(const std::string& name) {
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  int id = static_cast<int>(program_->names.size());
  program_->names.push_back(name);
  name_ids_.emplace(name, id);
  return id;
}

void Parser::Enter() {
  if (++depth_ > 200) Fail("template nesting too deep");
}

Body Parser::ParseTopLevel() {
  std::string which;
  return ParseBody({}, &which);
}

Body Parser::ParseBody(const std::vector<std::string>& end_names, std::string* which) {
  Body body;
  while (true) {
    const Token& t = Cur();
    switch (t.type) {
      case Tok::kEof:
        if (end_names.empty()) return body;
        Fail(t.offset, "unexpected end of template; expected " + JoinQuoted(end_names));
      case Tok::kData:
        body.push_back(std::make_unique<OutputStmt>(t.offset, t.text));
        Next();
        break;
      case Tok::kVarBegin: {
        uint32_t off = t.offset;
        Next();
        ExprPtr e = ParseTuple();
        if (Cur().type != Tok::kVarEnd) Fail("expected end of print statement, got " + Describe(Cur()));
        Next();
        body.push_back(std::make_unique<PrintStmt>(off, std::move(e)));
        break;
      }
      case Tok::kBlockBegin: {
        const Token& n = Peek();
        if (n.type == Tok::kName &&
            std::find(end_names.begin(), end_names.end(), n.text) != end_names.end()) {
          *which = n.text;
          Next();
          Next();
          return body;
        }
        Enter();
        body.push_back(ParseStatement());
        Leave();
        break;
      }
      default:
        Fail("unexpected " + Describe(t));
    }
  }
}

StmtPtr Parser::ParseStatement() {
  uint32_t off = Cur().offset;
  Next();  // block begin
  if (Cur().type != Tok::kName) Fail("tag name expected, got " + Describe(Cur()));
  std::string kw = Cur().text;
  Next();
  if (kw == "if") return ParseIf(off);
  if (kw == "for") return ParseFor(off);
  if (kw == "set") return ParseSet(off);
  if (kw == "macro") return ParseMacro(off);
  if (kw == "call") return ParseCallBlock(off);
  if (kw == "filter") return ParseFilterBlock(off);
  if (kw == "with") return ParseWith(off);
  if (kw == "break" || kw == "continue") {
    if (loop_depth_ == 0) Fail(off, "'" + kw + "' outside of a loop");
    ExpectBlockEnd();
    return std::make_unique<Stmt>(kw == "break" ? StmtKind::kBreak : StmtKind::kContinue, off);
  }
  if (kw == "generation") {
    ExpectBlockEnd();
    auto s = std::make_unique<ScopeStmt>(off);
    std::string which;
    s->body = ParseBody({"endgeneration"}, &which);
    ExpectBlockEnd();
    return s;
  }
  static const std::set<std::string> kUnsupported = {
      "extends", "block", "include", "import", "from", "autoescape", "do", "trans", "print"};
  if (kUnsupported.count(kw)) Fail(off, "unsupported tag '" + kw + "'");
  Fail(off, "unknown or unexpected tag '" + kw + "'");
}

StmtPtr Parser::ParseIf(uint32_t off) {
  auto s = std::make_unique<IfStmt>(off);
  ++if_depth_;
  s->conds.push_back(ParseTuple(/*with_condexpr=*/false));
  ExpectBlockEnd();
  while (true) {
    std::string which;
    s->bodies.push_back(ParseBody({"elif", "else", "endif"}, &which));
    if (which == "elif") {
      s->conds.push_back(ParseTuple(false));
      ExpectBlockEnd();
      continue;
    }
    ExpectBlockEnd();
    if (which == "else") {
      s->else_body = ParseBody({"endif"}, &which);
      ExpectBlockEnd();
    }
    break;
  }
  --if_depth_;
  return s;
}

StmtPtr Parser::ParseFor(uint32_t off) {
  auto s = std::make_unique<ForStmt>(off);
  s->target = ParseTarget(true, {"in"});
  if (!SkipName("in")) Fail("expected 'in', got " + Describe(Cur()));
  s->iter = ParseTuple(false, false, {"recursive"});
  if (SkipName("if")) s->filter = ParseExpression();
  s->recursive = SkipName("recursive");
  ExpectBlockEnd();
  BindTargetNames(s->target);
  ++loop_depth_;
  std::string which;
  s->body = ParseBody({"endfor", "else"}, &which);
  --loop_depth_;
  ExpectBlockEnd();
  if (which == "else") {
    s->else_body = ParseBody({"endfor"}, &which);
    ExpectBlockEnd();
  }
  return s;
}

StmtPtr Parser::ParseSet(uint32_t off) {
  if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == "." &&
      Peek(2).type == Tok::kName) {
    auto s = std::make_unique<SetAttrStmt>(off);
    s->ns_name = Cur().text;
    s->ns_id = Intern(s->ns_name);
    loaded_names.push_back(s->ns_name);
    Next();
    Next();
    s->attr = ExpectName();
    ExpectOp("=");
    s->value = ParseTuple();
    ExpectBlockEnd();
    return s;
  }
  Target target = ParseTarget(true, {});
  if (SkipOp("=")) {
    auto s = std::make_unique<SetStmt>(off);
    s->target = std::move(target);
    s->value = ParseTuple();
    NoteAssigned(s->target, Cur().offset);
    ExpectBlockEnd();
    return s;
  }
  auto s = std::make_unique<SetBlockStmt>(off);
  s->target = std::move(target);
  if (SkipOp("|")) {
    do {
      s->filters.push_back(ParseFilter(nullptr));
    } while (SkipOp("|"));
  }
  ExpectBlockEnd();
  std::string which;
  s->body = ParseBody({"endset"}, &which);
  NoteAssigned(s->target, Cur().offset);
  ExpectBlockEnd();
  return s;
}

void Parser::ParseMacroSignature(MacroDef* def) {
  ExpectOp("(");
  bool seen_default = false;
  while (!SkipOp(")")) {
    if (!def->params.empty()) ExpectOp(",");
    if (IsOp(")")) continue;  // trailing comma
    uint32_t off = Cur().offset;
    std::string name = ExpectName();
    if (IsReservedConstName(name)) Fail(off, "can't assign to '" + name + "'");
    MacroParam p{Intern(name), name, nullptr};
    if (SkipOp("=")) {
      p.default_value = ParseExpression();
      seen_default = true;
    } else if (seen_default) {
      Fail(off, "non-default argument follows default argument");
    }
    bound_only_names.push_back(name);
    def->params.push_back(std::move(p));
  }
}

StmtPtr Parser::ParseMacro(uint32_t off) {
  auto s = std::make_unique<MacroStmt>(off);
  s->def.name = ExpectName();
  s->def.offset = off;
  s->name_id = Intern(s->def.name);
  ParseMacroSignature(&s->def);
  ExpectBlockEnd();
  int saved_loop = loop_depth_;
  loop_depth_ = 0;
  macros_.push_back(&s->def);
  std::string which;
  s->def.body = ParseBody({"endmacro"}, &which);
  macros_.pop_back();
  loop_depth_ = saved_loop;
  ExpectBlockEnd();
  return s;
}

StmtPtr Parser::ParseCallBlock(uint32_t off) {
  auto s = std::make_unique<CallBlockStmt>(off);
  s->caller.name = "caller";
  s->caller.offset = off;
  if (IsOp("(")) ParseMacroSignature(&s->caller);
  uint32_t call_off = Cur().offset;
  s->call = ParseExpression();
  if (s->call->kind != ExprKind::kCall) Fail(call_off, "expected a call after 'call'");
  ExpectBlockEnd();
  int saved_loop = loop_depth_;
  loop_depth_ = 0;
  macros_.push_back(&s->caller);
  std::string which;
  s->caller.body = ParseBody({"endcall"}, &which);
  macros_.pop_back();
  loop_depth_ = saved_loop;
  ExpectBlockEnd();
  return s;
}

StmtPtr Parser::ParseFilterBlock(uint32_t off) {
  auto s = std::make_unique<FilterBlockStmt>(off);
  do {
    s->filters.push_back(ParseFilter(nullptr));
  } while (SkipOp("|"));
  ExpectBlockEnd();
  std::string which;
  s->body = ParseBody({"endfilter"}, &which);
  ExpectBlockEnd();
  return s;
}

StmtPtr Parser::ParseWith(uint32_t off) {
  auto s = std::make_unique<WithStmt>(off);
  while (Cur().type != Tok::kBlockEnd) {
    if (!s->targets.empty()) ExpectOp(",");
    Target t = ParseTarget(false, {});
    ExpectOp("=");
    s->values.push_back(ParseExpression());
    BindTargetNames(t);
    s->targets.push_back(std::move(t));
  }
  ExpectBlockEnd();
  std::string which;
  s->body = ParseBody({"endwith"}, &which);
  ExpectBlockEnd();
  return s;
}

Target Parser::ParseTarget(bool allow_tuple, const std::vector<std::string>& extra_end) {
  auto atom = [&]() {
    Target t;
    if (SkipOp("(")) {
      Enter();
      t = ParseTarget(true, {});
      Leave();
      ExpectOp(")");
      return t;
    }
    uint32_t off = Cur().offset;
    if (Cur().type != Tok::kName) Fail("can't assign to " + Describe(Cur()));
    t.name = Cur().text;
    if (IsReservedConstName(t.name)) Fail(off, "can't assign to '" + t.name + "'");
    t.name_id = Intern(t.name);
    Next();
    return t;
  };
  Target first = atom();
  if (!allow_tuple || !IsOp(",")) return first;
  Target tuple;
  tuple.items.push_back(std::move(first));
  while (SkipOp(",")) {
    if (IsTupleEnd(extra_end) || IsOp("=") || IsOp("|") || IsOp(")")) break;
    tuple.items.push_back(atom());
  }
  return tuple;
}

void Parser::NoteAssigned(const Target& t, uint32_t offset) {
  if (t.items.empty()) {
    first_assign.emplace(t.name, offset);
    return;
  }
  for (const auto& sub : t.items) NoteAssigned(sub, offset);
}

void Parser::BindTargetNames(const Target& t) {
  if (t.items.empty()) {
    bound_only_names.push_back(t.name);
    return;
  }
  for (const auto& sub : t.items) BindTargetNames(sub);
}

Result<std::shared_ptr<Program>> ParseTemplate(std::string_view source, std::string_view name) {
  auto program = std::make_shared<Program>();
  program->name = std::string(name);
  program->source = std::string(source);
  auto lexed = Lex(source);
  if (!lexed.ok()) return InvalidArgumentError(program->name + ":" + lexed.status().message());
  program->normalised_source = std::move(lexed->source);
  Parser parser(std::move(lexed->tokens), program.get());
  try {
    program->body = parser.ParseTopLevel();
  } catch (const ParseError& e) {
    SourceMap map(program->normalised_source);
    return InvalidArgumentError(program->name + ":" + map.Position(e.offset) + ": " + e.message);
  }
  std::set<std::string> bound(parser.bound_only_names.begin(), parser.bound_only_names.end());
  std::set<std::string> undeclared;
  for (const auto& n : parser.loaded_names) {
    auto assigned = parser.first_assign.find(n);
    bool set_before_read = assigned != parser.first_assign.end() && assigned->second < parser.first_load[n];
    if (!bound.count(n) && !set_before_read && FindGlobal(n) < 0 && n != "loop" && n != "caller" &&
        n != "varargs" && n != "kwargs") {
      undeclared.insert(n);
    }
  }
  program->undeclared.assign(undeclared.begin(), undeclared.end());
  std::set<std::string> loaded(parser.loaded_names.begin(), parser.loaded_names.end());
  program->loaded.assign(loaded.begin(), loaded.end());
  return program;
}

}  // namespace gemmad::tmpl::internal
