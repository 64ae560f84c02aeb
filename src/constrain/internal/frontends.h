// Front ends: each turns one kind of constraint into a GrammarAst (root rule set). Error messages
// are prefixed with the constraint kind ("json_schema: ...", "regex: ...", "grammar: ...").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "constrain/constraint_spec.h"
#include "constrain/internal/grammar_ast.h"
#include "constrain/vocabulary.h"

namespace gemmad::constrain::internal {

struct JsonOptions {
  bool compact = false;                 // disable_any_whitespace: ", " and ": " only
  bool closed_objects = false;          // disable_additional_properties
  // Gemma 4 tool-call argument syntax instead of JSON (chat-format.md §5.2): strings between
  // special tokens `<|"|>` (this id), bare keys, no whitespace, no exponents.
  int32_t gemma_quote_token = -1;
  bool gemma() const { return gemma_quote_token >= 0; }
};

// GBNF-style EBNF as xgrammar accepts it; the start rule is `root`.
Status BuildFromEbnf(std::string_view text, GrammarAst& ast);
// A whole-output regex (ECMAScript subset; ^ and $ at the ends are accepted and ignored).
Status BuildFromRegex(std::string_view pattern, GrammarAst& ast);
Status BuildFromChoices(const std::vector<std::string>& choices, GrammarAst& ast);
Status BuildFromJsonSchema(std::string_view schema_json, const JsonOptions& options, GrammarAst& ast);
Status BuildJsonObject(const JsonOptions& options, GrammarAst& ast);
// Gemma 4 native tool calls (chat-format.md §5.2) for spec.tools, with special-token terminals
// resolved in `vocab`.
Status BuildToolCalls(const ConstraintSpec& spec, const Vocabulary& vocab, GrammarAst& ast);

}  // namespace gemmad::constrain::internal
