// JSON Schema front end (frontends.h): schema -> GrammarAst. One rule per object, array, string and
// number occurrence (so that each has a single caller and its masks are context-free), one rule
// per $ref target (recursion allowed), alternatives for anyOf/oneOf/type lists/nullable.
#include <fmt/format.h>

#include <map>
#include <set>

#include "base/json_depth.h"
#include "constrain/internal/frontends.h"
#include "constrain/internal/json_builder.h"
#include "constrain/internal/json_schema.h"
#include "constrain/internal/schema_compiler.h"

namespace gemmad::constrain::internal {

Status BuildFromJsonSchema(std::string_view schema_json, const JsonOptions& options, GrammarAst& ast) {
  // Every schema level is at most two JSON levels ({"properties": {"x": {...}}}); refusing deeper
  // text here bounds every recursive walk of the document below (copies, merges, dumps).
  const int max_json = 2 * ast.meter().budget().max_nesting + 2;
  if (JsonNestingDepth(schema_json, max_json) > max_json) {
    return ast.meter().CheckNesting(ast.meter().budget().max_nesting + 1, "the schema").WithPrefix("json_schema");
  }
  SchemaJson schema = SchemaJson::parse(schema_json, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return InvalidArgumentError("json_schema: the schema is not valid JSON");
  int32_t root = ast.AddRule("root");
  ast.set_root(root);
  SchemaCompiler c(schema, options, ast);
  auto value = c.Value(schema, "");
  if (!value.ok()) return value.status().WithPrefix("json_schema");
  JsonBuilder& b = c.builder();
  ast.SetBody(root, ast.Seq({b.Ws(), *value, b.Ws()}));
  return OkStatus();
}

Status BuildJsonObject(const JsonOptions& options, GrammarAst& ast) {
  int32_t root = ast.AddRule("root");
  ast.set_root(root);
  JsonBuilder b(ast, options);
  ast.SetBody(root, ast.Seq({b.Ws(), ast.Ref(b.AnyObjectRule()), b.Ws()}));
  return OkStatus();
}

}  // namespace gemmad::constrain::internal
