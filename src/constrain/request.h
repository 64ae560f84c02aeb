// Request surface of structured outputs: turns the JSON fields of an OpenAI chat / completions
// request (`response_format`, `structured_outputs`, legacy `guided_*`) and the server flag
// `--structured-outputs-config` into plain data. Errors name the field, e.g.
//   "response_format: type json_schema requires the field json_schema"
//   "structured_outputs: only one of json, regex, choice, grammar, json_object may be set (got json, regex)"
// The caller (api/) maps every error here to HTTP 400. Bodies must be parsed as
// nlohmann::ordered_json: the order of a schema's `properties` is the order the output follows.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "constrain/constraint_spec.h"

namespace gemmad::constrain {

// `--structured-outputs-config` (JSON object). `backend` accepts vLLM's names ("auto", "xgrammar",
// "guidance", "outlines", "lm-format-enforcer"); all map to gemmad's own engine.
struct StructuredOutputsConfig {
  std::string backend = "auto";
  bool enable_in_reasoning = false;       // constrain the thinking channel too
  bool disable_any_whitespace = false;    // server-wide default for JSON kinds
  bool disable_additional_properties = false;
};

Result<StructuredOutputsConfig> ParseStructuredOutputsConfig(std::string_view json_text);

// Reads the constraint of a request body (a JSON object). Returns nullopt when the request asks
// for none (no fields, `response_format: {"type":"text"}`). Sources, in order of precedence:
//   * `structured_outputs`: exactly one of json (object or JSON string), regex, choice, grammar,
//     json_object (true); options disable_any_whitespace, disable_additional_properties.
//     `structural_tag` and `whitespace_pattern` are Unimplemented errors.
//   * `response_format` {"type":"json_object"} / {"type":"json_schema","json_schema":{"name",
//     "schema","strict"}} sets `json` / `json_object` of structured_outputs (as vLLM does); a
//     second constraint from structured_outputs is then an error.
//   * legacy top-level `guided_json`, `guided_regex`, `guided_choice`, `guided_grammar` (+
//     `guided_whitespace_pattern` rejected as above) — accepted as aliases when neither of the
//     above is present (a deliberate difference: vLLM >= 0.19 ignores them).
// `config` supplies server-wide defaults for the whitespace/additionalProperties options.
// JSON schema objects without `additionalProperties` are closed unless the backend is guidance
// (ClosesObjectsByDefault); `"additionalProperties": true` or a schema is always honoured.
Result<std::optional<ConstraintSpec>> ParseRequestConstraint(const nlohmann::ordered_json& body,
                                                             const StructuredOutputsConfig& config);

// vLLM's default backend, xgrammar (chosen by "auto"), compiles JSON schemas in strict mode: an
// object schema without `additionalProperties` admits no other keys, so `response_format=
// PydanticModel` never gets extra keys. Only the guidance backend follows JSON Schema there
// (extra keys allowed) unless disable_additional_properties. True when objects are closed.
bool ClosesObjectsByDefault(const StructuredOutputsConfig& config);

// The forced tool-call constraint (issue 8): for `tool_choice` "required" or a named function,
// a kGemmaToolCalls spec over the request's `tools` (OpenAI format: [{"type":"function",
// "function":{"name","parameters"}}]); nullopt for "auto", "none" or absent. "required" allows
// 1..unbounded calls (exactly 1 with parallel_tool_calls=false), a named choice exactly 1 call of
// that tool. Errors: unknown tool name, malformed tools/tool_choice.
Result<std::optional<ConstraintSpec>> ToolCallConstraint(const nlohmann::ordered_json& tools,
                                                         const nlohmann::ordered_json& tool_choice,
                                                         bool parallel_tool_calls);

}  // namespace gemmad::constrain
