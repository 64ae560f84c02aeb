// SequenceSampler: grammar mask -> raw logprobs -> processors -> penalties -> greedy or draw.
#include "sample/sequence_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace gemmad::sample {

SequenceSampler::SequenceSampler(SamplingParams params, uint64_t seed,
                                 std::span<const int32_t> prompt_token_ids,
                                 std::optional<int32_t> eos_token_id, int32_t vocab_size,
                                 std::shared_ptr<TokenConstraint> constraint)
    : params_(std::move(params)),
      rng_(seed),
      vocab_size_(vocab_size),
      prompt_unique_(prompt_token_ids.begin(), prompt_token_ids.end()),
      constraint_(std::move(constraint)) {
  std::sort(prompt_unique_.begin(), prompt_unique_.end());
  prompt_unique_.erase(std::unique(prompt_unique_.begin(), prompt_unique_.end()), prompt_unique_.end());
  if (params_.min_tokens > 0) {
    if (eos_token_id) min_tokens_stop_ids_.push_back(*eos_token_id);
    for (int32_t t : params_.stop_token_ids) min_tokens_stop_ids_.push_back(t);
  }
  if (constraint_) bitmask_.resize(static_cast<size_t>(BitmaskWords(vocab_size_)));
}

void SequenceSampler::ApplyProcessors(std::span<float> logits) const {
  ApplyAllowedTokens(logits, params_.allowed_token_ids);
  ApplyBadWords(logits, params_.bad_words_token_ids, output_);
  for (const auto& [t, bias] : params_.logit_bias) logits[static_cast<size_t>(t)] += bias;
  if (num_output_tokens() < params_.min_tokens) {
    for (int32_t t : min_tokens_stop_ids_) logits[static_cast<size_t>(t)] = kNegInf;
  }
  ApplyPenalties(logits, prompt_unique_, output_counts_, params_.repetition_penalty,
                 params_.frequency_penalty, params_.presence_penalty);
}

Result<SampleOutput> SequenceSampler::Sample(std::span<float> logits, const kernels::ExecContext& exec) {
  GEMMAD_CHECK(static_cast<int32_t>(logits.size()) == vocab_size_, "logits row of {} for vocab {}",
               logits.size(), vocab_size_);
  if (constraint_ && constraint_->FillNextTokenBitmask(bitmask_)) ApplyBitmask(logits, bitmask_);
  SampleOutput out;
  // vLLM's default logprobs_mode "raw_logprobs": before any processor (after the grammar).
  std::optional<std::vector<float>> raw;
  if (params_.logprobs) raw.emplace(logits.begin(), logits.end());
  ApplyProcessors(logits);
  int32_t token = -1;
  if (params_.greedy()) {
    token = ArgMax(logits);
  } else {
    token = SampleFiltered(logits, params_.temperature, params_.top_k, params_.top_p, params_.min_p,
                           rng_.Uniform(), &scratch_, exec);
  }
  if (token < 0) return InternalError("sampling failed: every token of the vocabulary is masked");
  if (constraint_) {
    Status s = constraint_->AcceptToken(token);
    if (!s.ok()) return s.WithPrefix(fmt::format("grammar rejected token {}", token));
  }
  out.token_id = token;
  if (raw) out.logprobs = GatherLogprobs(*raw, token, *params_.logprobs);
  output_.push_back(token);
  ++output_counts_[token];
  return out;
}

}  // namespace gemmad::sample
