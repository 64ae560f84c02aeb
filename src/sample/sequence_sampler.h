// SequenceSampler: the sampling state of one output sequence (its RNG, the output history the
// penalties and bad words read, its grammar constraint) and the per-token sampling pipeline.
// It lives as long as the sequence, across preemptions, so a seeded sequence draws the same
// random numbers however it is batched or recomputed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "base/rng.h"
#include "sample/logits_ops.h"
#include "sample/logprobs.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"

namespace gemmad::sample {

struct SampleOutput {
  int32_t token_id = 0;
  std::optional<TokenLogprobs> logprobs;  // when params.logprobs is set
};

class SequenceSampler {
 public:
  // `params` must be Normalized and Validated. `eos_token_id` is the primary EOS (masked,
  // together with stop_token_ids, until min_tokens tokens exist).
  SequenceSampler(SamplingParams params, uint64_t seed, std::span<const int32_t> prompt_token_ids,
                  std::optional<int32_t> eos_token_id, int32_t vocab_size,
                  std::shared_ptr<TokenConstraint> constraint);

  // Samples the next token from `logits` ([vocab_size] raw model logits; used as scratch and
  // left modified) and records it (output history, grammar). Errors: the grammar rejected the
  // token, or no token was possible (every logit masked). Kernel ops run on `exec` (without a pool
  // when called from a parallel task).
  Result<SampleOutput> Sample(std::span<float> logits, const kernels::ExecContext& exec = {});

  const SamplingParams& params() const { return params_; }
  int64_t num_output_tokens() const { return static_cast<int64_t>(output_.size()); }
  const std::vector<int32_t>& output_token_ids() const { return output_; }

 private:
  void ApplyProcessors(std::span<float> logits) const;

  SamplingParams params_;
  Rng rng_;
  int32_t vocab_size_;
  std::vector<int32_t> prompt_unique_;  // sorted (repetition penalty)
  std::vector<int32_t> min_tokens_stop_ids_;
  std::vector<int32_t> output_;
  std::unordered_map<int32_t, int32_t> output_counts_;
  std::shared_ptr<TokenConstraint> constraint_;
  std::vector<uint32_t> bitmask_;
  FilterScratch scratch_;
};

}  // namespace gemmad::sample
