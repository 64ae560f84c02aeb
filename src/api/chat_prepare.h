// PrepareChat: a chat request from body to engine request: parse and validate, check the
// model, render the chat template, tokenize, build sampling parameters. Everything before
// Submit, so a failure here is always a plain HTTP error.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/chat_request.h"
#include "api/sampling_build.h"
#include "api/serving_context.h"
#include "mm/item.h"
#include "sample/token_constraint.h"

namespace gemmad::api {

struct PreparedChat {
  ChatRequest request;
  std::string request_id;   // chatcmpl-...
  int64_t created = 0;
  std::string role;         // response role (the last message's role without a generation prompt)
  std::string prompt_text;  // the rendered template
  std::vector<int32_t> prompt_ids;
  std::vector<mm::Item> mm_items;  // images and video frames, sorted by placeholder offset
  BuiltSampling sampling;
  std::string echo_text;    // last message's text when echo applies, else ""
  // Structured outputs / forced tool calls (api/structured_output.h); empty: unconstrained.
  sample::TokenConstraintFactory make_constraint;
};

std::optional<ApiError> PrepareChat(const ServingContext& ctx, const ApiCall& call, PreparedChat* out);
// The same for a body already decoded (the Responses route builds a chat body from its request,
// and names the request itself: `request_id`, else chatcmpl-<X>).
std::optional<ApiError> PrepareChatBody(const ServingContext& ctx, const ApiCall& call, const Json& body,
                                        PreparedChat* out, std::optional<std::string> request_id = std::nullopt);

// Renders and tokenizes messages as a chat request would (also used by /tokenize).
struct ChatRenderInput {
  const Json* messages = nullptr;
  const Json* tools = nullptr;  // array or null
  const Json* chat_template_kwargs = nullptr;
  std::optional<std::string> chat_template;  // request-supplied template
  bool add_generation_prompt = true;
  bool continue_final_message = false;
  bool add_special_tokens = false;
  const Json* mm_processor_kwargs = nullptr;  // the request's, may be null
  const Json* media_io_kwargs = nullptr;      // the request's, may be null
  std::function<bool()> client_gone;          // stops media fetches early; may be empty
};
// Media parts (images, videos) are fetched, decoded and preprocessed, and their placeholders
// expanded (api/media_prompt.h); `items` (may be null) receives one mm::Item per image or frame,
// `audio_seconds` (may be null) each audio clip's duration (16 kHz samples before truncation).
std::optional<ApiError> RenderAndTokenize(const ServingContext& ctx, const ChatRenderInput& in, std::string* text,
                                          std::vector<int32_t>* ids, std::vector<mm::Item>* items = nullptr,
                                          std::vector<double>* audio_seconds = nullptr);

}  // namespace gemmad::api
