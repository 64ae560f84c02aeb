// ResponsesRequest: POST /v1/responses parsed and validated as vLLM's ResponsesRequest (field
// defaults and model validators), and its conversion into the chat-completions body that the
// chat route's preparation (api/chat_prepare.h) turns into an engine request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "api/api_error.h"
#include "api/request_fields.h"

namespace gemmad::api {

// Bound checked before any work (the body size bounds it too): input items per request.
inline constexpr size_t kMaxResponsesInputItems = 4096;

struct ResponsesRequest {
  Json input;  // a string or a list of items, as given
  std::optional<std::string> instructions;
  std::optional<std::string> previous_response_id;
  std::optional<std::string> model;
  bool stream = false;
  bool store = true;
  bool background = false;
  Json tools = Json::array();  // Responses tools, as given (echoed in the response)
  Json tool_choice = "auto";   // as given
  bool parallel_tool_calls = true;
  std::optional<int64_t> max_output_tokens;
  std::optional<double> temperature, top_p;
  std::optional<int64_t> top_k;
  int64_t top_logprobs = 0;
  bool include_output_logprobs = false;  // include has "message.output_text.logprobs"
  // Echoed as given (null when absent).
  Json text, reasoning, metadata, user, max_tool_calls, prompt;
  std::string truncation = "disabled";
  std::string service_tier = "auto";
  std::optional<std::string> request_id;  // the body's; unset: the server makes resp_<32 hex>
  // vLLM extras passed on to the chat request unchanged when present (seed, stop, ...).
  Json passthrough = Json::object();
};

// Parses a decoded body. Errors are validation ApiErrors (HTTP 400) with pydantic-style paths.
std::optional<ApiError> ParseResponsesRequest(const Json& body, ResponsesRequest* out);

// What the conversation before this request contributes (previous_response_id): the chat
// messages that request was rendered from, and the message texts of its output.
struct PriorTurn {
  Json messages = Json::array();
  Json output = Json::array();  // the previous response's output items
};

// The chat messages vLLM's construct_input_messages builds: the instructions as a system
// message, the previous turn (its system messages dropped; of its output only the message
// items, reasoning and function calls skipped, as vLLM does), then the input items converted
// (input_text/input_image/input_audio parts, function_call merged into the preceding
// assistant message, function_call_output as a tool message, reasoning items as the assistant
// message's `reasoning`). Unsupported items are a 400 naming `input`.
std::optional<ApiError> BuildChatMessages(const ResponsesRequest& r, const PriorTurn* prior, Json* messages);

// The chat-completions body for `messages`: sampling fields, tools in chat form, tool_choice,
// text.format json_schema as structured_outputs.json, reasoning.effort as the template's
// reasoning_effort, continue_final_message for a trailing in-progress message, logprobs.
// `auto_tools` is --enable-auto-tool-choice: without it vLLM renders the tools but parses no
// calls (the chat route would refuse tool_choice "auto" instead).
std::optional<ApiError> BuildChatBody(const ResponsesRequest& r, Json messages, bool auto_tools, Json* body);

}  // namespace gemmad::api
