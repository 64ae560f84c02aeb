// SchemaCompiler: one JSON schema (or a tool's parameters schema) -> expressions and rules of a
// GrammarAst, in JSON or in Gemma tool-call syntax (JsonOptions::gemma()). Paths in errors are
// JSON pointers into the schema ("at /properties/age: ...").
#pragma once

#include <map>
#include <string>

#include "base/result.h"
#include "constrain/internal/json_builder.h"
#include "constrain/internal/json_schema.h"

namespace gemmad::constrain::internal {

class SchemaCompiler {
 public:
  SchemaCompiler(const SchemaJson& document, const JsonOptions& options, GrammarAst& ast);

  // An expression matching exactly the values `schema` (at `path` of the document) allows.
  Result<ExprId> Value(const SchemaJson& schema, const std::string& path);
  // The members of an object schema without the braces (Gemma tool calls wrap them themselves).
  Result<ExprId> ObjectMembers(const SchemaJson& schema, const std::string& path, bool* has_required);
  JsonBuilder& builder() { return b_; }

 private:
  Result<ExprId> ValueAtDepth(const SchemaJson& schema, const std::string& path);
  Result<ExprId> Dispatch(const SchemaJson& s, const std::string& path);
  Result<ExprId> Typed(const SchemaJson& s, const std::string& type, const std::string& path);
  Result<ExprId> Enum(const SchemaJson& s, const std::string& path);
  Result<ExprId> Object(const SchemaJson& s, const std::string& path);
  Result<ExprId> Array(const SchemaJson& s, const std::string& path);
  Result<ExprId> String(const SchemaJson& s, const std::string& path);
  Result<ExprId> Number(const SchemaJson& s, bool integer, const std::string& path);
  Result<ExprId> RefTo(const std::string& ref, const std::string& path);
  Result<const SchemaJson*> Resolve(const std::string& ref, const std::string& path);
  ExprId Key(const std::string& name);
  ExprId AdditionalKey(const std::vector<std::string>& declared);

  const SchemaJson& doc_;
  GrammarAst& ast_;
  JsonBuilder b_;
  std::map<std::string, int32_t> ref_rules_;
  int depth_ = 0;
};

}  // namespace gemmad::constrain::internal
