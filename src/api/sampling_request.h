// SamplingRequest: the request fields chat and completion requests share (vLLM protocol.py),
// exactly as the client gave them (unset = not given), plus their schema-level validation.
// Turning them into engine SamplingParams (with generation-config defaults) is sampling_build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/request_fields.h"

namespace gemmad::api {

struct SamplingRequest {
  std::optional<std::string> model;
  std::optional<double> temperature, top_p, min_p;
  std::optional<int64_t> top_k;
  std::optional<double> presence_penalty, frequency_penalty, repetition_penalty;
  std::optional<int64_t> seed;
  std::optional<int64_t> n;
  std::optional<int64_t> max_tokens;  // chat: max_completion_tokens wins over max_tokens
  std::optional<int64_t> min_tokens;
  std::optional<int64_t> prompt_logprobs;
  std::optional<int64_t> truncate_prompt_tokens;
  std::vector<std::string> stop;
  std::vector<int64_t> stop_token_ids;
  std::vector<std::pair<int64_t, double>> logit_bias;  // token id, bias (as given)
  std::optional<std::vector<int64_t>> allowed_token_ids;
  std::vector<std::string> bad_words;
  bool ignore_eos = false;
  bool include_stop_str_in_output = false;
  bool skip_special_tokens = true;
  bool spaces_between_special_tokens = true;
  bool stream = false;
  bool include_usage = false;           // stream_options.include_usage
  bool continuous_usage_stats = false;  // stream_options.continuous_usage_stats
  bool return_tokens_as_token_ids = false;
  bool return_token_ids = false;
  bool use_beam_search = false;
  std::optional<std::string> request_id;
  std::optional<std::string> cache_salt;
  std::optional<int64_t> thinking_token_budget;
  int64_t priority = 0;
  // Structured-output requests, kept raw for the grammar compiler (constrain/).
  Json response_format;     // null when absent
  Json structured_outputs;  // null when absent
};

// Reads the shared fields from a request object. `chat` selects chat-only spellings
// (max_completion_tokens). Schema errors are recorded in `reader`.
void ReadSamplingFields(FieldReader& reader, bool chat, SamplingRequest* out);

}  // namespace gemmad::api
