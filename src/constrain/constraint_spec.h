// ConstraintSpec: what a request asks the output to satisfy (JSON schema, any JSON object, regex,
// choice list, EBNF grammar, or Gemma 4 native tool calls). Plain data; CacheKey() is canonical, so
// two specs with the same meaning (e.g. schemas differing only in whitespace) share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmad::constrain {

enum class ConstraintKind {
  kJsonSchema,   // json_schema holds the schema as JSON text
  kJsonObject,   // any JSON object (response_format {"type":"json_object"})
  kRegex,        // regex holds an ECMAScript-subset pattern; the whole output must match it
  kChoice,       // the whole output is exactly one of `choices` (raw text, not JSON-quoted)
  kGrammar,      // grammar holds GBNF-style EBNF as xgrammar accepts it; start rule `root`
  kGemmaToolCalls,  // Gemma 4 native tool-call syntax for `tools` (chat-format.md §5.2)
};

// One tool for kGemmaToolCalls: the function name and its `parameters` JSON schema as JSON text
// (empty = no parameters: the call is `call:NAME{}`).
struct ToolSchema {
  std::string name;
  std::string parameters_json;
};

struct ConstraintSpec {
  ConstraintKind kind = ConstraintKind::kJsonObject;
  std::string json_schema;           // kJsonSchema
  std::string regex;                 // kRegex
  std::vector<std::string> choices;  // kChoice (non-empty)
  std::string grammar;               // kGrammar
  std::vector<ToolSchema> tools;     // kGemmaToolCalls (non-empty)
  // kGemmaToolCalls: how many `<|tool_call>...<tool_call|>` blocks may be emitted back to back.
  // tool_choice "required": min 1, max 0 (= unbounded) or 1 with parallel_tool_calls=false.
  // A named tool_choice: `tools` holds that one tool, min 1, max 1.
  int32_t min_tool_calls = 1;
  int32_t max_tool_calls = 0;

  // JSON kinds: one canonical spacing, `", "` between items and `": "` after keys and nothing
  // else (Python json.dumps' default, as xgrammar's any_whitespace=False), instead of the default
  // bounded flexible whitespace (docs/structured-outputs.md §Whitespace).
  bool disable_any_whitespace = false;
  // JSON schema: objects without an explicit `additionalProperties` are closed (vLLM option of the
  // same name; also what `"strict": true` means for OpenAI-style schemas, see the docs).
  bool disable_additional_properties = false;

  // Canonical text identifying the spec (schemas re-serialised without whitespace); used as the
  // compiled-grammar cache key. Falls back to the raw text when a schema is not valid JSON (the
  // compile then fails with a precise error anyway).
  std::string CacheKey() const;
};

std::string_view ConstraintKindName(ConstraintKind kind);

}  // namespace gemmad::constrain
