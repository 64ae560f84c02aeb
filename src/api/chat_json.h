// JSON shapes of chat responses, in vLLM's field order: stream chunks serialise only the fields
// vLLM sets explicitly; full responses serialise every field, nulls included. Parser output
// (reasoning, content, tool calls) is written by src/parse/openai_json.
#pragma once

#include <string>

#include "api/request_fields.h"
#include "parse/delta.h"

namespace gemmad::api {

struct ChunkHeader {
  std::string id;
  int64_t created = 0;
  std::string model;
};

// {"id","object":"chat.completion.chunk","created","model","choices":[...]}.
Json ChatChunk(const ChunkHeader& h, Json choices);
// The non-streaming message object (all fields).
Json MessageJson(const std::string& role, const parse::ParsedMessage& message);

}  // namespace gemmad::api
