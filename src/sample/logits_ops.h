// Free functions over one row of logits ([vocab_size] floats), in the order vLLM's v1 sampler
// applies them: grammar mask, raw logprobs, allowed ids / bad words / bias / min_tokens,
// penalties, then (random sampling only) temperature, min_p, top_k, top_p.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/context.h"
#include "sample/logprobs.h"

namespace gemmad::sample {

inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// log(sum(exp(logits))) in double; -inf when every logit is -inf.
double LogSumExp(std::span<const float> logits);

// The logprob record of `token` under log_softmax(logits): logprob, vLLM rank (count of
// logprobs >= the token's) and the `num_top` most likely tokens (logprob desc, id asc).
TokenLogprobs GatherLogprobs(std::span<const float> logits, int32_t token, int32_t num_top);

// Tokens whose bit is clear in `bitmask` get -inf.
void ApplyBitmask(std::span<float> logits, std::span<const uint32_t> bitmask);

// Every token not in `allowed` gets -inf (no-op when `allowed` is empty).
void ApplyAllowedTokens(std::span<float> logits, std::span<const int32_t> allowed);

// vLLM bad words: a one-token word is always banned; a longer word bans its last token when
// the output ends with the word's other tokens.
void ApplyBadWords(std::span<float> logits, const std::vector<std::vector<int32_t>>& bad_words,
                   std::span<const int32_t> output_tokens);

// Penalties with vLLM semantics. `prompt_unique` sorted and unique; `output_counts` maps each
// generated token to its count. Repetition: logits of tokens in prompt or output are divided by
// `repetition` when positive, multiplied when not. Then logit -= frequency * count +
// presence * (count > 0) over output tokens.
void ApplyPenalties(std::span<float> logits, std::span<const int32_t> prompt_unique,
                    const std::unordered_map<int32_t, int32_t>& output_counts, float repetition,
                    float frequency, float presence);

// Index of the largest logit (the lowest id among ties); -1 when all are -inf or NaN.
int32_t ArgMax(std::span<const float> logits);

// Random sampling after temperature: keeps the tokens that survive min_p (prob >= min_p x
// max prob), top_k (logit >= the k-th largest; ties kept) and top_p (the smallest
// most-likely-first prefix whose mass reaches p, computed after top_k), then draws with
// inverse CDF from `uniform` in [0, 1). Returns -1 when no token is finite.
// `scratch` is reused between calls to avoid allocation. The weights of the temperature-only draw
// come from the kernels::ExpShifted op on `exec`'s backend (call it without a pool from inside a
// parallel task).
struct FilterScratch {
  std::vector<std::pair<double, int32_t>> cand;  // (logit, then probability / max probability; id)
  std::vector<float> values;
  std::vector<double> block_sums;  // the temperature-only draw's mass per block of logits
};
int32_t SampleFiltered(std::span<const float> logits, float temperature, int32_t top_k, float top_p,
                       float min_p, double uniform, FilterScratch* scratch, const kernels::ExecContext& exec = {});

}  // namespace gemmad::sample
