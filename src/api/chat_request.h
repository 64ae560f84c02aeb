// ChatRequest: POST /v1/chat/completions, parsed and schema-validated as vLLM's
// ChatCompletionRequest (field defaults, model validators and their messages).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/api_error.h"
#include "api/sampling_request.h"

namespace gemmad::api {

enum class ToolChoiceKind { kNone, kAuto, kRequired, kNamed };

struct ChatRequest {
  SamplingRequest sampling;
  Json messages;            // array, as received (template/ normalises it)
  Json mm_processor_kwargs;  // null or an object (e.g. {"max_soft_tokens": 560})
  Json media_io_kwargs;      // null or an object (e.g. {"video": {"num_frames": 16}})
  Json tools;               // array or null
  ToolChoiceKind tool_choice = ToolChoiceKind::kNone;
  std::string tool_choice_name;  // kNamed
  bool tool_choice_given = false;
  bool parallel_tool_calls = true;
  bool logprobs = false;
  std::optional<int64_t> top_logprobs;
  bool echo = false;
  bool add_generation_prompt = true;
  bool continue_final_message = false;
  bool add_special_tokens = false;
  std::optional<std::string> chat_template;
  Json chat_template_kwargs;  // object or null
  bool include_reasoning = true;
};

// Parses a request body (already decoded JSON). Errors are validation ApiErrors (HTTP 400).
std::optional<ApiError> ParseChatRequest(const Json& body, ChatRequest* out);

}  // namespace gemmad::api
