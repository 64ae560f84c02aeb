// Gemma 4 native tool-call front end (frontends.h): one or more
//   <|tool_call>call:NAME{key:value,...}<tool_call|>
// blocks whose arguments satisfy the tool's parameters schema in Gemma's value syntax; the
// markers and string quotes are the special tokens themselves.
#include <fmt/format.h>

#include "constrain/internal/frontends.h"
#include "constrain/internal/schema_compiler.h"

namespace gemmad::constrain::internal {
namespace {

Result<int32_t> Special(const Vocabulary& vocab, const char* text) {
  auto id = vocab.FindSpecial(text);
  if (!id) return FailedPreconditionError(fmt::format("gemma_tool_calls: the vocabulary has no special token {}", text));
  return *id;
}

bool ValidName(const std::string& n) {
  if (n.empty()) return false;
  for (char c : n) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

}  // namespace

Status BuildToolCalls(const ConstraintSpec& spec, const Vocabulary& vocab, GrammarAst& ast) {
  if (spec.tools.empty()) return InvalidArgumentError("gemma_tool_calls: no tools");
  if (spec.min_tool_calls < 0 || (spec.max_tool_calls > 0 && spec.max_tool_calls < spec.min_tool_calls)) {
    return InvalidArgumentError("gemma_tool_calls: bad call count bounds");
  }
  GEMMAD_ASSIGN_OR_RETURN(int32_t open, Special(vocab, "<|tool_call>"));
  GEMMAD_ASSIGN_OR_RETURN(int32_t close, Special(vocab, "<tool_call|>"));
  GEMMAD_ASSIGN_OR_RETURN(int32_t quote, Special(vocab, "<|\"|>"));
  JsonOptions options;
  options.gemma_quote_token = quote;
  options.closed_objects = spec.disable_additional_properties;
  int32_t root = ast.AddRule("root");
  ast.set_root(root);
  std::vector<ExprId> calls;
  for (size_t i = 0; i < spec.tools.size(); ++i) {
    const ToolSchema& t = spec.tools[i];
    const std::string where = fmt::format("gemma_tool_calls: tools[{}] ({})", i, t.name);
    if (!ValidName(t.name)) return InvalidArgumentError(where + ": a tool name may only contain letters, digits, _ - .");
    SchemaJson params = SchemaJson::object();
    if (!t.parameters_json.empty()) {
      params = SchemaJson::parse(t.parameters_json, nullptr, /*allow_exceptions=*/false);
      if (params.is_discarded()) return InvalidArgumentError(where + ": parameters are not valid JSON");
    }
    if (!params.is_object()) return InvalidArgumentError(where + ": parameters must be a JSON object schema");
    if (params.contains("type") && params["type"] != "object") {
      return InvalidArgumentError(where + ": parameters must have \"type\": \"object\"");
    }
    SchemaCompiler c(params, options, ast);
    ExprId members = ast.Empty();
    if (!params.empty()) {
      bool has_required = false;
      auto m = c.ObjectMembers(params, "", &has_required);
      if (!m.ok()) return m.status().WithPrefix(where);
      members = *m;
    }
    int32_t rule = ast.AddRule(fmt::format("call_{}", i));
    ast.SetBody(rule, ast.Seq({ast.Bytes(t.name + "{"), members, ast.Bytes("}")}));
    calls.push_back(ast.Ref(rule));
  }
  ExprId call = ast.Seq({ast.Token(open), ast.Bytes("call:"), ast.Alt(std::move(calls)), ast.Token(close)});
  ast.SetBody(root, ast.Repeat(call, spec.min_tool_calls, spec.max_tool_calls > 0 ? spec.max_tool_calls : -1));
  return OkStatus();
}

}  // namespace gemmad::constrain::internal
