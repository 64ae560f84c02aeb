// Responses API objects (see responses_output.h).
#include "api/responses_output.h"

#include <fmt/format.h>

#include "api/request_common.h"
#include "api/responses_request.h"

namespace gemmad::api {
namespace {

std::string Take(std::vector<std::string>& ids, size_t& next, const char* prefix) {
  if (next < ids.size()) return ids[next++];
  return NewResponsesId(prefix);
}

}  // namespace

std::string NewResponsesId(const char* prefix) { return fmt::format("{}_{}", prefix, RandomHex(32)); }

Json ResponseObject(const ResponseHeader& h, const ResponsesRequest& r, Json output, const std::string& status,
                    Json usage) {
  Json o = Json::object();
  o["id"] = h.id;
  o["created_at"] = h.created_at;
  o["incomplete_details"] = status == "incomplete" ? Json{{"reason", "max_output_tokens"}} : Json(nullptr);
  o["instructions"] = r.instructions ? Json(*r.instructions) : Json(nullptr);
  o["metadata"] = r.metadata;
  o["model"] = h.model;
  o["object"] = "response";
  o["output"] = std::move(output);
  o["parallel_tool_calls"] = r.parallel_tool_calls;
  o["temperature"] = h.temperature;
  o["tool_choice"] = r.tool_choice;
  o["tools"] = r.tools;
  o["top_p"] = h.top_p;
  o["background"] = r.background;
  o["max_output_tokens"] = h.max_output_tokens;
  o["max_tool_calls"] = r.max_tool_calls;
  o["previous_response_id"] = r.previous_response_id ? Json(*r.previous_response_id) : Json(nullptr);
  o["prompt"] = nullptr;
  o["reasoning"] = r.reasoning;
  o["service_tier"] = r.service_tier;
  o["status"] = status;
  o["text"] = r.text;
  o["top_logprobs"] = h.top_logprobs ? Json(*h.top_logprobs) : Json(nullptr);
  o["truncation"] = r.truncation;
  o["usage"] = std::move(usage);
  o["user"] = r.user;
  o["input_messages"] = nullptr;
  o["output_messages"] = nullptr;
  return o;
}

Json ResponsesUsage(int64_t input_tokens, int64_t cached_tokens, int64_t output_tokens, int64_t reasoning_tokens) {
  Json u = Json::object();
  u["input_tokens"] = input_tokens;
  u["input_tokens_details"] = Json{{"cached_tokens", cached_tokens}};
  u["output_tokens"] = output_tokens;
  u["output_tokens_details"] = Json{{"reasoning_tokens", reasoning_tokens}};
  u["total_tokens"] = input_tokens + output_tokens;
  return u;
}

Json ReasoningTextPart(const std::string& text) { return Json{{"text", text}, {"type", "reasoning_text"}}; }

Json OutputTextPart(const std::string& text, Json logprobs) {
  return Json{{"annotations", Json::array()}, {"text", text}, {"type", "output_text"}, {"logprobs", std::move(logprobs)}};
}

Json ReasoningItem(const std::string& id, const std::optional<std::string>& text, Json status) {
  Json o = Json::object();
  o["id"] = id;
  o["summary"] = Json::array();
  o["type"] = "reasoning";
  o["content"] = text ? Json::array({ReasoningTextPart(*text)}) : Json(nullptr);
  o["encrypted_content"] = nullptr;
  o["status"] = std::move(status);
  return o;
}

Json MessageItem(const std::string& id, const std::optional<std::string>& text, const std::string& status,
                 Json logprobs) {
  Json o = Json::object();
  o["id"] = id;
  o["content"] = text ? Json::array({OutputTextPart(*text, std::move(logprobs))}) : Json::array();
  o["role"] = "assistant";
  o["status"] = status;
  o["type"] = "message";
  return o;
}

Json FunctionCallItem(const std::string& id, const std::string& call_id, const std::string& name,
                      const std::string& arguments, const std::string& status) {
  Json o = Json::object();
  o["arguments"] = arguments;
  o["call_id"] = call_id;
  o["name"] = name;
  o["type"] = "function_call";
  o["id"] = id;
  o["status"] = status;
  return o;
}

Json OutputItems(const parse::ParsedMessage& m, bool parsing, ItemIds ids, Json logprobs) {
  size_t next_rs = 0, next_msg = 0, next_fc = 0;
  Json items = Json::array();
  if (!parsing) {
    const std::string text = m.content.value_or("");
    std::optional<std::string> part;
    if (!text.empty()) part = text;
    items.push_back(MessageItem(Take(ids.message, next_msg, "msg"), part, "completed", std::move(logprobs)));
    return items;
  }
  if (m.reasoning && !m.reasoning->empty()) {
    items.push_back(ReasoningItem(Take(ids.reasoning, next_rs, "rs"), *m.reasoning, nullptr));
  }
  if (m.content && !m.content->empty()) {
    items.push_back(MessageItem(Take(ids.message, next_msg, "msg"), *m.content, "completed", std::move(logprobs)));
  }
  for (size_t i = 0; i < m.tool_calls.size(); ++i) {
    const parse::ToolCall& call = m.tool_calls[i];
    const std::string& call_id = i < ids.call_ids.size() ? ids.call_ids[i] : call.id;
    items.push_back(FunctionCallItem(Take(ids.function_call, next_fc, "fc"), call_id, call.name, call.arguments,
                                     "completed"));
  }
  return items;
}

int64_t CountReasoningTokens(const std::vector<int32_t>& ids, std::optional<int32_t> start, std::optional<int32_t> end) {
  int64_t count = 0;
  int depth = 0;
  for (int32_t id : ids) {
    if (start && id == *start) {
      ++depth;
    } else if (end && id == *end) {
      if (depth > 0) --depth;
    } else if (depth > 0) {
      ++count;
    }
  }
  return count;
}

}  // namespace gemmad::api
