// Chat JSON shapes (see chat_json.h).
#include "api/chat_json.h"

#include "parse/openai_json.h"

namespace gemmad::api {

Json ChatChunk(const ChunkHeader& h, Json choices) {
  Json j = Json::object();
  j["id"] = h.id;
  j["object"] = "chat.completion.chunk";
  j["created"] = h.created;
  j["model"] = h.model;
  j["choices"] = std::move(choices);
  return j;
}

Json MessageJson(const std::string& role, const parse::ParsedMessage& message) {
  Json m = Json::object();
  m["role"] = role;
  m["content"] = nullptr;
  m["refusal"] = nullptr;
  m["annotations"] = nullptr;
  m["audio"] = nullptr;
  m["function_call"] = nullptr;
  m["tool_calls"] = Json::array();
  m["reasoning"] = nullptr;
  parse::WriteMessageFields(message, m);
  return m;
}

}  // namespace gemmad::api
