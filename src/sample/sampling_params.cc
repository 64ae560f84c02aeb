// Validation and normalisation of SamplingParams with vLLM's messages (vllm/sampling_params.py).
#include "sample/sampling_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

namespace gemmad::sample {
namespace {

// Python's str(float): "1.0", "0.5", "inf".
std::string PyFloat(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

Status Bad(std::string field, std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message), std::move(field));
}

bool InVocab(int32_t t, int32_t vocab) { return t >= 0 && t < vocab; }

Status ValidateRanges(const SamplingParams& p) {
  if (p.n < 1) return Bad("n", fmt::format("n must be at least 1, got {}.", p.n));
  if (!(p.presence_penalty >= -2.0f && p.presence_penalty <= 2.0f)) {
    return Bad("presence_penalty", fmt::format("presence_penalty must be in [-2, 2], got {}.", PyFloat(p.presence_penalty)));
  }
  if (!(p.frequency_penalty >= -2.0f && p.frequency_penalty <= 2.0f)) {
    return Bad("frequency_penalty", fmt::format("frequency_penalty must be in [-2, 2], got {}.", PyFloat(p.frequency_penalty)));
  }
  if (!std::isfinite(p.repetition_penalty)) {
    return Bad("repetition_penalty", fmt::format("repetition_penalty must be a finite number, got {}.", PyFloat(p.repetition_penalty)));
  }
  if (p.repetition_penalty <= 0.0f) {
    return Bad("repetition_penalty", fmt::format("repetition_penalty must be greater than zero, got {}.", PyFloat(p.repetition_penalty)));
  }
  if (!std::isfinite(p.temperature)) {
    return Bad("temperature", fmt::format("temperature must be a finite number, got {}.", PyFloat(p.temperature)));
  }
  if (p.temperature < 0.0f) {
    return Bad("temperature", fmt::format("temperature must be non-negative, got {}.", PyFloat(p.temperature)));
  }
  if (!(p.top_p > 0.0f && p.top_p <= 1.0f)) {
    return Bad("top_p", fmt::format("top_p must be in (0, 1], got {}.", PyFloat(p.top_p)));
  }
  if (p.top_k < -1) return Bad("top_k", fmt::format("top_k must be 0 (disable), or at least 1, got {}.", p.top_k));
  if (!(p.min_p >= 0.0f && p.min_p <= 1.0f)) {
    return Bad("min_p", fmt::format("min_p must be in [0, 1], got {}.", PyFloat(p.min_p)));
  }
  if (p.max_tokens && *p.max_tokens < 1) {
    return Bad("max_tokens", fmt::format("max_tokens must be at least 1, got {}.", *p.max_tokens));
  }
  if (p.min_tokens < 0) {
    return Bad("min_tokens", fmt::format("min_tokens must be greater than or equal to 0, got {}.", p.min_tokens));
  }
  if (p.max_tokens && p.min_tokens > *p.max_tokens) {
    return Bad("min_tokens", fmt::format("min_tokens must be less than or equal to max_tokens={}, got {}.",
                           *p.max_tokens, p.min_tokens));
  }
  if (p.logprobs && *p.logprobs < -1) {
    return Bad("logprobs", fmt::format("logprobs must be non-negative or -1, got {}.", *p.logprobs));
  }
  if (p.prompt_logprobs && *p.prompt_logprobs < -1) {
    return Bad("prompt_logprobs", fmt::format("prompt_logprobs must be non-negative or -1, got {}.", *p.prompt_logprobs));
  }
  // Positive temperatures below kMinTemperature are raised (Normalized), so only 0 is greedy.
  if (p.temperature <= 0.0f && p.n > 1) {
    return Bad("n", fmt::format("n must be 1 when using greedy sampling, got {}.", p.n));
  }
  return OkStatus();
}

Status ValidateTokenIds(const SamplingParams& p, int32_t vocab) {
  for (const auto& [t, bias] : p.logit_bias) {
    if (!InVocab(t, vocab)) {
      return Bad("logit_bias", fmt::format("token_id(s) [{}] in logit_bias contain out-of-vocab token ids. "
                             "Vocabulary size: {}", t, vocab));
    }
    if (!std::isfinite(bias)) return Bad("logit_bias", fmt::format("logit_bias for token {} is not finite", t));
  }
  for (int32_t t : p.allowed_token_ids) {
    if (!InVocab(t, vocab)) return Bad("allowed_token_ids", "allowed_token_ids contains out-of-vocab token id!");
  }
  for (int32_t t : p.stop_token_ids) {
    if (!InVocab(t, vocab)) {
      return Bad("stop_token_ids", fmt::format("stop_token_ids contains token id {} outside the vocabulary (size {}).", t, vocab));
    }
  }
  for (const auto& word : p.bad_words_token_ids) {
    if (word.empty()) return Bad("bad_words", "bad_words entries must tokenize to at least one token.");
    for (int32_t t : word) {
      if (!InVocab(t, vocab)) {
        return Bad("bad_words", fmt::format("The model vocabulary size is {}, but the following tokens were "
                               "specified as bad: [{}]. All token id values should be integers "
                               "satisfying: 0 <= token_id < {}.", vocab, t, vocab));
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status Validate(const SamplingParams& params, const SamplingLimits& limits) {
  GEMMAD_RETURN_IF_ERROR(ValidateRanges(params));
  if (params.n > limits.max_n) {
    return Bad("n", fmt::format("n must be at most {}, got {}.", limits.max_n, params.n));
  }
  const int32_t max_lp = limits.max_logprobs == -1 ? limits.vocab_size : limits.max_logprobs;
  auto requested = [&](int32_t k) { return k == -1 ? limits.vocab_size : k; };
  if (params.logprobs && requested(*params.logprobs) > max_lp) {
    return Bad("logprobs", fmt::format("Requested sample logprobs of {}, which is greater than max allowed: {}",
                           requested(*params.logprobs), max_lp));
  }
  if (params.prompt_logprobs && requested(*params.prompt_logprobs) > max_lp) {
    return Bad("prompt_logprobs", fmt::format("Requested prompt logprobs of {}, which is greater than max allowed: {}",
                           requested(*params.prompt_logprobs), max_lp));
  }
  return ValidateTokenIds(params, limits.vocab_size);
}

SamplingParams Normalized(SamplingParams p, int32_t vocab_size) {
  if (p.seed && *p.seed == -1) p.seed.reset();
  if (p.temperature > 0.0f && p.temperature < kMinTemperature) p.temperature = kMinTemperature;
  if (p.top_k == -1) p.top_k = 0;
  if (p.greedy()) {
    p.top_p = 1.0f;
    p.top_k = 0;
    p.min_p = 0.0f;
  }
  if (p.logprobs && *p.logprobs == -1) p.logprobs = vocab_size;
  if (p.prompt_logprobs && *p.prompt_logprobs == -1) p.prompt_logprobs = vocab_size;
  for (auto& [t, bias] : p.logit_bias) bias = std::clamp(bias, -100.0f, 100.0f);
  std::unordered_set<int32_t> seen;
  std::vector<int32_t> stops;
  for (int32_t t : p.stop_token_ids) {
    if (seen.insert(t).second) stops.push_back(t);
  }
  p.stop_token_ids = std::move(stops);
  return p;
}

}  // namespace gemmad::sample
