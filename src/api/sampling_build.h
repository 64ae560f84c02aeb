// BuildSampling: request fields + generation-config defaults -> the engine's admitted request
// (token-level SamplingParams) and the API's TextParams (stop strings, detokenisation), as vLLM's
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
  // The request as the engine admitted it (engine::ValidateRequest).
  std::optional<engine::ValidatedRequest> request;
  // Its sampling parameters, normalised and with max_tokens resolved (valid until the request is
  // moved out to be submitted).
  const sample::SamplingParams& params() const { return request->sampling(); }
  TextParams text;
};

struct SamplingInputs {
  const SamplingRequest* request = nullptr;
  const GenerationDefaults* defaults = nullptr;
  const engine::EngineLimits* limits = nullptr;
  const tokenizer::Tokenizer* tokenizer = nullptr;  // for bad_words; may be null if none given
  const std::vector<int32_t>* prompt_ids = nullptr;
  std::optional<int32_t> logprobs;         // already mapped from the request's own field
  std::optional<int32_t> prompt_logprobs;
  const std::vector<mm::Item>* mm_items = nullptr;  // media items of the prompt (may be null)
};

// Request fields and generation-config defaults -> SamplingParams, then the engine's one
// admission check (engine::ValidateRequest: ranges, vocabulary, context length, KV capacity;
// its errors name the field as `param`). max_tokens follows vLLM's get_max_tokens:
// min(request max_tokens or the room left, generation-config max_new_tokens).
std::optional<ApiError> BuildSampling(const SamplingInputs& in, BuiltSampling* out);

}  // namespace gemmad::api
