// Expression parsing: precedence climbing in jinja2's order
// condexpr > or > and > not > compare > math1(+,-) > concat(~) > math2(*,/,//,%) > pow(**) >
// unary(-,+) > postfix (.attr, [key], call) > filters (|f) and tests (is t).
#include "template/builtins.h"
#include "template/parser_impl.h"

namespace gemmad::tmpl::internal {
namespace {

ExprPtr MakeExpr(ExprKind k, uint32_t off) { return std::make_unique<Expr>(k, off); }

ExprPtr MakeBinary(BinOp op, ExprPtr l, ExprPtr r) {
  auto e = MakeExpr(ExprKind::kBinary, l->offset);
  e->op = op;
  e->a = std::move(l);
  e->b = std::move(r);
  return e;
}

}  // namespace

bool Parser::IsTupleEnd(const std::vector<std::string>& extra_end) const {
  const Token& t = Cur();
  if (t.type == Tok::kVarEnd || t.type == Tok::kBlockEnd || t.type == Tok::kEof) return true;
  if (t.type == Tok::kOp && t.text == ")") return true;
  if (t.type == Tok::kName) {
    for (const auto& n : extra_end) {
      if (t.text == n) return true;
    }
  }
  return false;
}

ExprPtr Parser::ParseTuple(bool with_condexpr, bool explicit_parens,
                           std::vector<std::string> extra_end) {
  uint32_t off = Cur().offset;
  std::vector<ExprPtr> args;
  bool is_tuple = false;
  while (true) {
    if (!args.empty()) ExpectOp(",");
    if (IsTupleEnd(extra_end)) break;
    args.push_back(ParseExpression(with_condexpr));
    if (IsOp(",")) {
      is_tuple = true;
    } else {
      break;
    }
  }
  if (!is_tuple) {
    if (!args.empty()) return std::move(args[0]);
    if (!explicit_parens) Fail("expected an expression, got " + Describe(Cur()));
  }
  auto e = MakeExpr(ExprKind::kTuple, off);
  e->items = std::move(args);
  return e;
}

ExprPtr Parser::ParseExpression(bool with_condexpr) {
  Enter();
  ExprPtr e = with_condexpr ? ParseCondExpr() : ParseOr();
  Leave();
  return e;
}

ExprPtr Parser::ParseCondExpr() {
  ExprPtr expr1 = ParseOr();
  while (SkipName("if")) {
    ExprPtr cond = ParseOr();
    ExprPtr otherwise;
    if (SkipName("else")) otherwise = ParseCondExpr();
    auto e = MakeExpr(ExprKind::kCond, expr1->offset);
    e->a = std::move(cond);
    e->b = std::move(expr1);
    e->c = std::move(otherwise);
    expr1 = std::move(e);
  }
  return expr1;
}

ExprPtr Parser::ParseOr() {
  ExprPtr left = ParseAnd();
  while (SkipName("or")) {
    auto e = MakeExpr(ExprKind::kOr, left->offset);
    e->a = std::move(left);
    e->b = ParseAnd();
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseAnd() {
  ExprPtr left = ParseNot();
  while (SkipName("and")) {
    auto e = MakeExpr(ExprKind::kAnd, left->offset);
    e->a = std::move(left);
    e->b = ParseNot();
    left = std::move(e);
  }
  return left;
}

ExprPtr Parser::ParseNot() {
  if (IsName("not")) {
    uint32_t off = Cur().offset;
    Next();
    Enter();
    auto e = MakeExpr(ExprKind::kNot, off);
    e->a = ParseNot();
    Leave();
    return e;
  }
  return ParseCompare();
}

ExprPtr Parser::ParseCompare() {
  ExprPtr first = ParseMath1();
  std::vector<CmpOp> ops;
  std::vector<ExprPtr> operands;
  while (true) {
    const Token& t = Cur();
    CmpOp op;
    if (t.type == Tok::kOp && t.text == "==") {
      op = CmpOp::kEq;
    } else if (t.type == Tok::kOp && t.text == "!=") {
      op = CmpOp::kNe;
    } else if (t.type == Tok::kOp && t.text == "<") {
      op = CmpOp::kLt;
    } else if (t.type == Tok::kOp && t.text == "<=") {
      op = CmpOp::kLe;
    } else if (t.type == Tok::kOp && t.text == ">") {
      op = CmpOp::kGt;
    } else if (t.type == Tok::kOp && t.text == ">=") {
      op = CmpOp::kGe;
    } else if (t.type == Tok::kName && t.text == "in") {
      op = CmpOp::kIn;
    } else if (t.type == Tok::kName && t.text == "not" && Peek().type == Tok::kName &&
               Peek().text == "in") {
      Next();
      op = CmpOp::kNotIn;
    } else {
      break;
    }
    Next();
    ops.push_back(op);
    operands.push_back(ParseMath1());
  }
  if (ops.empty()) return first;
  auto e = MakeExpr(ExprKind::kCompare, first->offset);
  e->items.push_back(std::move(first));
  for (auto& o : operands) e->items.push_back(std::move(o));
  e->cmp_ops = std::move(ops);
  return e;
}

ExprPtr Parser::ParseMath1() {
  ExprPtr left = ParseConcat();
  while (IsOp("+") || IsOp("-")) {
    BinOp op = IsOp("+") ? BinOp::kAdd : BinOp::kSub;
    Next();
    left = MakeBinary(op, std::move(left), ParseConcat());
  }
  return left;
}

ExprPtr Parser::ParseConcat() {
  ExprPtr first = ParseMath2();
  if (!IsOp("~")) return first;
  auto e = MakeExpr(ExprKind::kConcat, first->offset);
  e->items.push_back(std::move(first));
  while (SkipOp("~")) e->items.push_back(ParseMath2());
  return e;
}

ExprPtr Parser::ParseMath2() {
  ExprPtr left = ParsePow();
  while (true) {
    BinOp op;
    if (IsOp("*")) {
      op = BinOp::kMul;
    } else if (IsOp("/")) {
      op = BinOp::kDiv;
    } else if (IsOp("//")) {
      op = BinOp::kFloorDiv;
    } else if (IsOp("%")) {
      op = BinOp::kMod;
    } else {
      break;
    }
    Next();
    left = MakeBinary(op, std::move(left), ParsePow());
  }
  return left;
}

ExprPtr Parser::ParsePow() {
  ExprPtr left = ParseUnary(true);
  while (SkipOp("**")) left = MakeBinary(BinOp::kPow, std::move(left), ParseUnary(true));
  return left;
}

ExprPtr Parser::ParseUnary(bool with_filter) {
  Enter();
  uint32_t off = Cur().offset;
  ExprPtr node;
  if (IsOp("-") || IsOp("+")) {
    bool neg = IsOp("-");
    Next();
    node = MakeExpr(ExprKind::kUnary, off);
    node->op = neg ? BinOp::kSub : BinOp::kAdd;
    node->a = ParseUnary(false);
  } else {
    node = ParsePrimary();
  }
  node = ParsePostfix(std::move(node));
  if (with_filter) node = ParseFilterExpr(std::move(node));
  Leave();
  return node;
}

ExprPtr Parser::MakeName(const Token& t) {
  auto e = MakeExpr(ExprKind::kName, t.offset);
  e->name = t.text;
  e->name_id = Intern(t.text);
  loaded_names.push_back(t.text);
  first_load.emplace(t.text, t.offset);
  if (!macros_.empty()) {
    MacroDef* m = macros_.back();
    if (t.text == "caller") m->uses_caller = true;
    if (t.text == "varargs") m->uses_varargs = true;
    if (t.text == "kwargs") m->uses_kwargs = true;
  }
  return e;
}

ExprPtr Parser::ParsePrimary() {
  const Token& t = Cur();
  uint32_t off = t.offset;
  switch (t.type) {
    case Tok::kName: {
      ExprPtr e;
      if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False") {
        e = MakeExpr(ExprKind::kConst, off);
        e->value = Value::Bool(t.text[0] == 't' || t.text[0] == 'T');
      } else if (t.text == "none" || t.text == "None") {
        e = MakeExpr(ExprKind::kConst, off);
        e->value = Value::None();
      } else {
        e = MakeName(t);
      }
      Next();
      return e;
    }
    case Tok::kString: {
      std::string s = t.text;
      Next();
      while (Cur().type == Tok::kString) {
        s += Cur().text;
        Next();
      }
      auto e = MakeExpr(ExprKind::kConst, off);
      e->value = Value::Str(std::move(s));
      return e;
    }
    case Tok::kInt:
    case Tok::kFloat: {
      auto e = MakeExpr(ExprKind::kConst, off);
      e->value = t.type == Tok::kInt ? Value::Int(t.int_value) : Value::Float(t.float_value);
      Next();
      return e;
    }
    case Tok::kOp:
      if (t.text == "(") {
        Next();
        ExprPtr e = ParseTuple(true, true);
        ExpectOp(")");
        return e;
      }
      if (t.text == "[" || t.text == "{") {
        bool is_dict = t.text == "{";
        const char* close = is_dict ? "}" : "]";
        auto e = MakeExpr(is_dict ? ExprKind::kDict : ExprKind::kList, off);
        Next();
        while (!IsOp(close)) {
          if (!e->items.empty()) {
            ExpectOp(",");
            if (IsOp(close)) break;
          }
          e->items.push_back(ParseExpression());
          if (is_dict) {
            ExpectOp(":");
            e->items.push_back(ParseExpression());
          }
        }
        ExpectOp(close);
        return e;
      }
      break;
    default:
      break;
  }
  Fail("unexpected " + Describe(t));
}

ExprPtr Parser::ParsePostfix(ExprPtr node) {
  while (true) {
    if (IsOp(".") || IsOp("[")) {
      node = ParseSubscript(std::move(node));
    } else if (IsOp("(")) {
      node = ParseCall(std::move(node));
    } else {
      return node;
    }
  }
}

ExprPtr Parser::ParseFilterExpr(ExprPtr node) {
  while (true) {
    if (IsOp("|")) {
      Next();
      node = ParseFilter(std::move(node));
    } else if (IsName("is")) {
      node = ParseTest(std::move(node));
    } else if (IsOp("(")) {
      node = ParseCall(std::move(node));
    } else {
      return node;
    }
  }
}

ExprPtr Parser::ParseSubscript(ExprPtr node) {
  uint32_t off = Cur().offset;
  if (SkipOp(".")) {
    const Token& t = Cur();
    if (t.type == Tok::kName) {
      auto e = MakeExpr(ExprKind::kGetattr, off);
      e->a = std::move(node);
      e->name = t.text;
      Next();
      return e;
    }
    if (t.type == Tok::kInt) {
      auto e = MakeExpr(ExprKind::kGetitem, off);
      e->a = std::move(node);
      e->b = MakeExpr(ExprKind::kConst, t.offset);
      e->b->value = Value::Int(t.int_value);
      Next();
      return e;
    }
    Fail("expected name or number after '.'");
  }
  ExpectOp("[");
  std::vector<ExprPtr> args;
  while (!IsOp("]")) {
    if (!args.empty()) {
      ExpectOp(",");
      if (IsOp("]")) break;
    }
    args.push_back(ParseSubscribed());
  }
  ExpectOp("]");
  if (args.empty()) Fail(off, "expected a subscript");
  ExprPtr key;
  if (args.size() == 1) {
    key = std::move(args[0]);
  } else {
    key = MakeExpr(ExprKind::kTuple, off);
    key->items = std::move(args);
  }
  if (key->kind == ExprKind::kSlice) {
    key->a = std::move(node);
    return key;
  }
  auto e = MakeExpr(ExprKind::kGetitem, off);
  e->a = std::move(node);
  e->b = std::move(key);
  return e;
}

// A subscript: an expression or a slice [start]:[stop][:[step]] (slice object in `b`,`c`,`d`).
ExprPtr Parser::ParseSubscribed() {
  uint32_t off = Cur().offset;
  ExprPtr start;
  if (!IsOp(":")) {
    start = ParseExpression();
    if (!IsOp(":")) return start;
  }
  Next();  // ':'
  auto e = MakeExpr(ExprKind::kSlice, off);
  e->b = std::move(start);
  if (!IsOp("]") && !IsOp(",") && !IsOp(":")) e->c = ParseExpression();
  if (SkipOp(":")) {
    if (!IsOp("]") && !IsOp(",")) e->d = ParseExpression();
  }
  return e;
}

void Parser::ParseCallArgs(Expr* call) {
  ExpectOp("(");
  bool first = true;
  while (!IsOp(")")) {
    if (!first) {
      ExpectOp(",");
      if (IsOp(")")) break;
    }
    first = false;
    if (SkipOp("**")) {
      call->star_kwargs = ParseExpression();
    } else if (SkipOp("*")) {
      call->star_args = ParseExpression();
    } else if (Cur().type == Tok::kName && Peek().type == Tok::kOp && Peek().text == "=") {
      std::string key = Cur().text;
      Next();
      Next();
      call->kwargs.push_back(Kwarg{key, ParseExpression()});
    } else {
      if (!call->kwargs.empty() || call->star_kwargs) {
        Fail("positional argument follows keyword argument");
      }
      call->items.push_back(ParseExpression());
    }
  }
  ExpectOp(")");
}

ExprPtr Parser::ParseCall(ExprPtr callee) {
  auto e = MakeExpr(ExprKind::kCall, callee->offset);
  e->a = std::move(callee);
  ParseCallArgs(e.get());
  return e;
}

ExprPtr Parser::ParseFilter(ExprPtr input) {
  uint32_t off = Cur().offset;
  std::string name = ExpectName();
  while (IsOp(".") && Peek().type == Tok::kName) {
    Next();
    name += "." + Cur().text;
    Next();
  }
  auto e = MakeExpr(ExprKind::kFilter, off);
  e->a = std::move(input);
  e->name = name;
  e->callee = FindFilter(name);
  if (e->callee < 0 && if_depth_ == 0) Fail(off, "no filter named '" + name + "'");
  if (IsOp("(")) ParseCallArgs(e.get());
  return e;
}

ExprPtr Parser::ParseTest(ExprPtr node) {
  uint32_t off = Cur().offset;
  Next();  // 'is'
  bool negated = SkipName("not");
  std::string name = ExpectName();
  while (IsOp(".") && Peek().type == Tok::kName) {
    Next();
    name += "." + Cur().text;
    Next();
  }
  auto e = MakeExpr(ExprKind::kTest, off);
  e->a = std::move(node);
  e->name = name;
  e->negated = negated;
  e->callee = FindTest(name);
  if (e->callee < 0 && if_depth_ == 0) Fail(off, "no test named '" + name + "'");
  const Token& t = Cur();
  if (IsOp("(")) {
    ParseCallArgs(e.get());
  } else if ((t.type == Tok::kName || t.type == Tok::kString || t.type == Tok::kInt ||
              t.type == Tok::kFloat || IsOp("[") || IsOp("{")) &&
             !(t.type == Tok::kName && (t.text == "else" || t.text == "or" || t.text == "and"))) {
    if (IsName("is")) Fail("you cannot chain multiple tests with is");
    ExprPtr arg = ParsePostfix(ParsePrimary());
    e->items.push_back(std::move(arg));
  }
  return e;
}

}  // namespace gemmad::tmpl::internal
