// BuildChatMessages (see responses_request.h): Responses input items -> chat messages, as
// vLLM's construct_input_messages / construct_chat_messages_with_tool_call.
#include <fmt/format.h>

#include "api/responses_request.h"

namespace gemmad::api {
namespace {

ApiError BadItem(size_t i, const std::string& what) {
  return ApiError::Validation(fmt::format("body.input.{}: {}", i, what), "input");
}

bool IsString(const Json& item, const char* key) { return item.contains(key) && item[key].is_string(); }

// The preceding message when it is an assistant message (items merge into it), else null.
Json* PrevAssistant(Json& messages) {
  if (messages.empty() || messages.back().value("role", "") != "assistant") return nullptr;
  return &messages.back();
}

// The first content part's text (vLLM takes content[0].text), or the string itself.
std::string FirstText(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  if (content.is_array() && !content.empty()) {
    const Json& first = content[0];
    if (first.is_string()) return first.get<std::string>();
    if (first.is_object() && first.contains("text") && first["text"].is_string()) return first["text"].get<std::string>();
  }
  return "";
}

std::optional<ApiError> AddFunctionCall(const Json& item, size_t i, Json& messages) {
  for (const char* key : {"call_id", "name", "arguments"}) {
    if (!IsString(item, key)) return BadItem(i, fmt::format("function_call.{}: Field required", key));
  }
  Json call = {{"id", item["call_id"]},
               {"type", "function"},
               {"function", {{"name", item["name"]}, {"arguments", item["arguments"]}}}};
  if (Json* prev = PrevAssistant(messages)) {
    if (!prev->contains("tool_calls") || !(*prev)["tool_calls"].is_array()) (*prev)["tool_calls"] = Json::array();
    (*prev)["tool_calls"].push_back(std::move(call));
    return std::nullopt;
  }
  messages.push_back(Json{{"role", "assistant"}, {"tool_calls", Json::array({std::move(call)})}});
  return std::nullopt;
}

std::optional<ApiError> AddReasoning(const Json& item, size_t i, Json& messages) {
  if (item.contains("encrypted_content") && !item["encrypted_content"].is_null()) {
    return ApiError::BadRequest("Encrypted content is not supported.", "input");
  }
  std::string text;
  const Json* content = item.contains("content") && item["content"].is_array() ? &item["content"] : nullptr;
  const Json* summary = item.contains("summary") && item["summary"].is_array() ? &item["summary"] : nullptr;
  if (content == nullptr && summary == nullptr) return BadItem(i, "reasoning.summary: Field required");
  if (content != nullptr && !content->empty()) {
    text = FirstText(*content);
  } else if (summary != nullptr && !summary->empty()) {
    text = FirstText(*summary);
  }
  if (Json* prev = PrevAssistant(messages); prev != nullptr && !prev->contains("reasoning")) {
    (*prev)["reasoning"] = text;
    return std::nullopt;
  }
  messages.push_back(Json{{"role", "assistant"}, {"reasoning", text}});
  return std::nullopt;
}

void AddAssistantText(std::string text, Json& messages) {
  if (Json* prev = PrevAssistant(messages); prev != nullptr && (!prev->contains("content") || (*prev)["content"].is_null())) {
    (*prev)["content"] = std::move(text);
    return;
  }
  messages.push_back(Json{{"role", "assistant"}, {"content", std::move(text)}});
}

std::optional<ApiError> AddMessage(const Json& item, size_t i, Json& messages) {
  if (!IsString(item, "role")) return BadItem(i, "message.role: Field required");
  const std::string role = item["role"].get<std::string>();
  if (role != "user" && role != "system" && role != "developer" && role != "assistant") {
    return BadItem(i, "message.role: Input should be 'user', 'assistant', 'system' or 'developer'");
  }
  if (!item.contains("content") || !(item["content"].is_string() || item["content"].is_array())) {
    return BadItem(i, "message.content: Field required");
  }
  if (role == "assistant") {
    AddAssistantText(FirstText(item["content"]), messages);
    return std::nullopt;
  }
  // input_text / input_image / input_audio parts are chat content parts as they are.
  messages.push_back(Json{{"role", role}, {"content", item["content"]}});
  return std::nullopt;
}

std::optional<ApiError> AddItem(const Json& item, size_t i, Json& messages) {
  const std::string type = item.contains("type") && item["type"].is_string() ? item["type"].get<std::string>() : "";
  if (type == "function_call") return AddFunctionCall(item, i, messages);
  if (type == "function_call_output") {
    if (!IsString(item, "call_id")) return BadItem(i, "function_call_output.call_id: Field required");
    if (!item.contains("output") || item["output"].is_null()) {
      return BadItem(i, "function_call_output.output: Field required");
    }
    messages.push_back(Json{{"role", "tool"}, {"content", item["output"]}, {"tool_call_id", item["call_id"]}});
    return std::nullopt;
  }
  if (type == "reasoning") return AddReasoning(item, i, messages);
  if (type.empty() || type == "message") return AddMessage(item, i, messages);
  return ApiError::BadRequest(fmt::format("Input item type '{}' is not supported by gemmad", type), "input");
}

}  // namespace

std::optional<ApiError> BuildChatMessages(const ResponsesRequest& r, const PriorTurn* prior, Json* messages) {
  Json out = Json::array();
  if (r.instructions && !r.instructions->empty()) out.push_back(Json{{"role", "system"}, {"content", *r.instructions}});
  if (prior != nullptr) {
    // Instructions do not carry over (OpenAI's rule, vLLM filters the old system messages).
    for (const Json& m : prior->messages) {
      if (m.value("role", "") != "system") out.push_back(m);
    }
    for (const Json& item : prior->output) {
      if (item.value("type", "") != "message" || !item.contains("content")) continue;
      for (const Json& part : item["content"]) {
        out.push_back(Json{{"role", "assistant"}, {"content", part.value("text", "")}});
      }
    }
  }
  if (r.input.is_string()) {
    out.push_back(Json{{"role", "user"}, {"content", r.input}});
  } else {
    for (size_t i = 0; i < r.input.size(); ++i) {
      if (auto e = AddItem(r.input[i], i, out)) return e;
    }
  }
  *messages = std::move(out);
  return std::nullopt;
}

}  // namespace gemmad::api
