// BuildSampling: request fields + generation-config defaults -> the engine's SamplingParams
// (token level) and the API's TextParams (stop strings, detokenisation), as vLLM's
// to_sampling_params and get_max_tokens do, with vLLM's error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/generation_defaults.h"
#include "api/sampling_request.h"
#include "engine/engine_client.h"
#include "sample/sampling_params.h"

namespace gemmad::tokenizer {
class Tokenizer;
}  // namespace gemmad::tokenizer

namespace gemmad::api {

// What the API does with text: stop strings and detokenisation options.
struct TextParams {
  std::vector<std::string> stop;
  bool include_stop_str_in_output = false;
  bool skip_special_tokens = true;
  bool spaces_between_special_tokens = true;
  int32_t min_tokens = 0;
};

struct BuiltSampling {
  sample::SamplingParams params;
  TextParams text;
};

struct SamplingInputs {
  const SamplingRequest* request = nullptr;
  const GenerationDefaults* defaults = nullptr;
  const engine::EngineLimits* limits = nullptr;
  const tokenizer::Tokenizer* tokenizer = nullptr;  // for bad_words; may be null if none given
  int64_t prompt_len = 0;
  std::optional<int32_t> logprobs;         // already mapped from the request's own field
  std::optional<int32_t> prompt_logprobs;
};

// The context-length check and max_tokens default (vLLM get_max_tokens):
// min(max_model_len - prompt_len, request max_tokens, generation-config max_new_tokens).
std::optional<ApiError> ResolveMaxTokens(std::optional<int64_t> requested, int64_t prompt_len,
                                         int64_t max_model_len, std::optional<int64_t> default_max,
                                         int32_t* out);

std::optional<ApiError> BuildSampling(const SamplingInputs& in, BuiltSampling* out);

// Guesses the request field a sampling error message is about ("temperature must be ...").
std::optional<std::string> ParamFromMessage(const std::string& message);

}  // namespace gemmad::api
