// OpenAI JSON forms of parser output (openai_json.h).
#include "parse/openai_json.h"

namespace gemmad::parse {

using Json = nlohmann::ordered_json;

Json DeltaToJson(const Delta& delta, const JsonOptions& options) {
  Json j = Json::object();
  if (delta.reasoning) {
    j["reasoning"] = *delta.reasoning;
    if (options.reasoning_content_alias) j["reasoning_content"] = *delta.reasoning;
  }
  if (delta.content) j["content"] = *delta.content;
  if (!delta.tool_calls.empty()) {
    Json calls = Json::array();
    for (const auto& tc : delta.tool_calls) {
      Json c = Json::object();
      if (tc.id) {
        c["id"] = *tc.id;
        c["type"] = "function";
      }
      c["index"] = tc.index;
      Json fn = Json::object();
      if (tc.name) fn["name"] = *tc.name;
      fn["arguments"] = tc.arguments;
      c["function"] = std::move(fn);
      calls.push_back(std::move(c));
    }
    j["tool_calls"] = std::move(calls);
  }
  return j;
}

void WriteMessageFields(const ParsedMessage& message, Json& message_json,
                        const JsonOptions& options) {
  message_json["content"] = message.content ? Json(*message.content) : Json(nullptr);
  Json calls = Json::array();
  for (const auto& tc : message.tool_calls) {
    Json c = Json::object();
    c["id"] = tc.id;
    c["type"] = "function";
    Json fn = Json::object();
    fn["name"] = tc.name;
    fn["arguments"] = tc.arguments;
    c["function"] = std::move(fn);
    calls.push_back(std::move(c));
  }
  message_json["tool_calls"] = std::move(calls);
  message_json["reasoning"] = message.reasoning ? Json(*message.reasoning) : Json(nullptr);
  if (options.reasoning_content_alias) message_json["reasoning_content"] = message_json["reasoning"];
}

}  // namespace gemmad::parse
