// The regex and choice front ends (frontends.h).
#include <fmt/format.h>

#include "constrain/internal/frontends.h"
#include "constrain/internal/regex.h"

namespace gemmad::constrain::internal {

Status BuildFromRegex(std::string_view pattern, GrammarAst& ast) {
  int32_t root = ast.AddRule("root");
  auto e = ParseRegex(pattern, RegexTarget::kRaw, RegexAnchoring::kWhole, ast);
  if (!e.ok()) return e.status().WithPrefix("regex");
  ast.SetBody(root, *e);
  ast.set_root(root);
  return OkStatus();
}

Status BuildFromChoices(const std::vector<std::string>& choices, GrammarAst& ast) {
  if (choices.empty()) return InvalidArgumentError("choice: the list of choices is empty");
  int32_t root = ast.AddRule("root");
  std::vector<ExprId> alts;
  for (const auto& c : choices) alts.push_back(ast.Bytes(c));
  ast.SetBody(root, ast.Alt(std::move(alts)));
  ast.set_root(root);
  return OkStatus();
}

}  // namespace gemmad::constrain::internal
