// CompletionRequest: POST /v1/completions, parsed and schema-validated as vLLM's
// CompletionRequest. A prompt is text or token ids; a batch holds several.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/sampling_request.h"

namespace gemmad::api {

struct PromptInput {
  bool is_tokens = false;
  std::string text;             // when !is_tokens
  std::vector<int64_t> tokens;  // when is_tokens
};

struct CompletionRequest {
  SamplingRequest sampling;     // max_tokens defaults to 16 (set by ParseCompletionRequest)
  std::vector<PromptInput> prompts;
  std::optional<int64_t> logprobs;  // number of top logprobs
  bool echo = false;
  bool add_special_tokens = true;
  std::optional<std::string> suffix;  // vLLM refuses any non-null value (400, after the model check)
};

std::optional<ApiError> ParseCompletionRequest(const Json& body, CompletionRequest* out);

}  // namespace gemmad::api
