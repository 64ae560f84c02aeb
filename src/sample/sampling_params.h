// SamplingParams: the token-level sampling knobs of one request, as vLLM's SamplingParams
// defines them (vllm/sampling_params.py), minus everything that works on text (stop strings,
// detokenisation, bad_words as strings): those stay in api/. Plain data, copyable.
// Invariant: a SamplingParams that passed Validate() can be sampled without further checks.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "base/status.h"

namespace gemmad::sample {

// vLLM: temperatures below this are greedy; positive ones below kMinTemperature are raised to it.
inline constexpr float kSamplingEps = 1e-5f;
inline constexpr float kMinTemperature = 1e-2f;

struct SamplingParams {
  // Number of output sequences. The engine fans n > 1 out into n child sequences (vLLM's
  // ParentRequest): child i gets seed + i when `seed` is set; outputs carry the child index.
  int32_t n = 1;

  float temperature = 1.0f;  // [0, 2]; < kSamplingEps = greedy (top_p/top_k/min_p then ignored)
  float top_p = 1.0f;        // (0, 1]
  int32_t top_k = 0;         // 0 or -1 = disabled, else >= 1
  float min_p = 0.0f;        // [0, 1]

  // Penalties, vLLM semantics: presence/frequency over *output* tokens only
  // (logit -= frequency * count + presence * (count > 0)); repetition over prompt + output
  // tokens (positive logits divided by it, negative multiplied).
  float presence_penalty = 0.0f;    // [-2, 2]
  float frequency_penalty = 0.0f;   // [-2, 2]
  float repetition_penalty = 1.0f;  // > 0, finite

  // Per-request RNG seed (int64 range; -1 means unset, as vLLM). Unseeded requests get a
  // seed drawn from the engine's generator, itself seeded by `--seed`.
  std::optional<int64_t> seed;

  // Output length limits. max_tokens unset = up to max_model_len - prompt length.
  std::optional<int32_t> max_tokens;
  int32_t min_tokens = 0;  // EOS and stop_token_ids are masked until this many tokens exist

  // Stopping. The primary EOS (engine config) stops with stop_token_id unset unless
  // ignore_eos; any id in stop_token_ids stops with stop_token_id = that id. The API merges
  // generation_config's extra eos ids into stop_token_ids (unless ignore_eos), as vLLM does.
  bool ignore_eos = false;
  std::vector<int32_t> stop_token_ids;

  // Logprobs of the raw model distribution (vLLM's default logprobs_mode "raw_logprobs":
  // log_softmax of the logits before penalties, bias, temperature and top-k/p; a grammar mask,
  // when present, is applied first, as vLLM does).
  //   logprobs: unset = none; 0 = the sampled token only; k > 0 = also the top k; -1 = all.
  //   prompt_logprobs: the same for every prompt position (position 0 has none). A request
  //   with prompt_logprobs does not read the prefix cache (vLLM does the same).
  std::optional<int32_t> logprobs;
  std::optional<int32_t> prompt_logprobs;

  // Token-id level filters. logit_bias values are clamped to [-100, 100] (as vLLM) and added
  // to the logits before penalties. allowed_token_ids: when non-empty, every other id gets
  // -inf. bad_words_token_ids: token sequences (from the API's tokenisation of bad_words,
  // both prefix-space forms) whose last token is banned when the output ends with the rest.
  std::vector<std::pair<int32_t, float>> logit_bias;
  std::vector<int32_t> allowed_token_ids;
  std::vector<std::vector<int32_t>> bad_words_token_ids;

  bool greedy() const { return temperature < kSamplingEps; }
};

// What Validate checks against (engine limits the API also knows).
struct SamplingLimits {
  int32_t vocab_size = 0;
  int32_t max_logprobs = 20;  // --max-logprobs; -1 = vocab size
  int32_t max_n = 16384;      // VLLM_MAX_N_SEQUENCES
};

// Checks every range with vLLM's error texts ("temperature must be non-negative, got -1.0.",
// "top_p must be in (0, 1], got 0.0.", "Requested sample logprobs of 21, which is greater than
// max allowed: 20", "n must be 1 when using greedy sampling, got 2.", token ids outside the
// vocabulary, ...). Returns kInvalidArgument on the first problem.
Status Validate(const SamplingParams& params, const SamplingLimits& limits);

// Returns a copy with vLLM's normalisations applied: temperature in (0, kMinTemperature)
// raised to kMinTemperature; greedy resets top_p/top_k/min_p; top_k -1 -> 0; logprobs and
// prompt_logprobs of -1 -> vocab_size; logit_bias clamped to [-100, 100]; stop_token_ids
// de-duplicated (first occurrence kept); seed -1 -> unset.
SamplingParams Normalized(SamplingParams params, int32_t vocab_size);

}  // namespace gemmad::sample
