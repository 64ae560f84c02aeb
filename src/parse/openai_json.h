// OpenAI JSON forms of parser output: the `delta` object of a chat.completion.chunk and the
// `reasoning` / `content` / `tool_calls` fields of a non-streaming `message`, with vLLM's key
// order (tool-call delta: id, type, index, function{name, arguments}). Included only by the
// code that writes responses (it pulls in nlohmann/json).
#pragma once

#include <nlohmann/json.hpp>

#include "parse/delta.h"

namespace gemmad::parse {

struct JsonOptions {
  // Also write reasoning under the pre-0.12 vLLM name `reasoning_content` (off by default:
  // vLLM >= 0.12 writes only `reasoning`).
  bool reasoning_content_alias = false;
};

// {"reasoning": ...} / {"content": ...} / {"tool_calls": [...]}: only the members set.
nlohmann::ordered_json DeltaToJson(const Delta& delta, const JsonOptions& options = {});

// Writes "content", "tool_calls" (always an array) and "reasoning" (and the alias) into a
// message object; members already present are overwritten, key order otherwise kept.
void WriteMessageFields(const ParsedMessage& message, nlohmann::ordered_json& message_json,
                        const JsonOptions& options = {});

}  // namespace gemmad::parse
