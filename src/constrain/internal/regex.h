// Regex front end: the ECMAScript subset used by JSON schemas and `structured_outputs.regex`
// (literals, `.`, classes with ranges and negation, \d \w \s and their negations, \xHH \uHHHH
// \u{H..} escapes, groups (capturing, (?:...), (?<name>...)), alternation, * + ? {n} {n,} {n,m}
// (lazy variants match the same strings), ^ and $ at the start/end of a top-level alternative).
// Not supported (Unimplemented errors): backreferences, lookaround, \b \B, anchors elsewhere.
#pragma once

#include <string_view>

#include "base/result.h"
#include "constrain/internal/grammar_ast.h"

namespace gemmad::constrain::internal {

enum class RegexTarget {
  kRaw,         // matched text is the UTF-8 output itself
  kJsonString,  // matched text is the content of a JSON string: characters appear JSON-encoded
};

enum class RegexAnchoring {
  kWhole,   // the regex must match the whole text; ^/$ at the ends are optional no-ops
  kSearch,  // JSON Schema `pattern`: a match anywhere; unanchored ends allow any text around
};

// Parses `pattern` into an expression of `ast`. Errors: "at offset N: problem".
Result<ExprId> ParseRegex(std::string_view pattern, RegexTarget target, RegexAnchoring anchoring,
                          GrammarAst& ast);

// One JSON string character from `ranges` (code points), JSON-encoded: raw UTF-8 for characters
// that need no escape, and the escape forms (\" \\ \n \u001f ...) for those that do.
ExprId JsonEncodedClass(const std::vector<CodeRange>& ranges, GrammarAst& ast);

}  // namespace gemmad::constrain::internal
