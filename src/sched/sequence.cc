// Sequence: token bookkeeping, incremental block hashes and the stop check.
#include "sched/sequence.h"

#include <algorithm>
#include <span>
#include <utility>

namespace gemmad::sched {

Sequence::Sequence(SequenceSpec spec, int32_t block_size)
    : spec_(std::move(spec)), block_size_(block_size), tokens_(spec_.prompt_token_ids) {
  tokens_.reserve(tokens_.size() + static_cast<size_t>(spec_.max_tokens));
  ExtendHashes();
}

void Sequence::ExtendHashes() {
  const size_t bs = static_cast<size_t>(block_size_);
  while ((hashes_.size() + 1) * bs <= tokens_.size()) {
    const size_t i = hashes_.size();
    std::span<const int32_t> block(tokens_.data() + i * bs, bs);
    const kv::BlockHash* parent = i == 0 ? nullptr : &hashes_.back();
    hashes_.push_back(kv::HashBlock(parent, block, i == 0 ? std::string_view(spec_.cache_salt) : std::string_view()));
  }
}

void Sequence::AppendToken(int32_t token) {
  tokens_.push_back(token);
  ExtendHashes();
}

SeqFinish Sequence::CheckStop(int64_t max_model_len, std::optional<int32_t>* stop_token_id) const {
  stop_token_id->reset();
  if (num_output_tokens() == 0) return SeqFinish::kNone;
  if (num_output_tokens() >= spec_.min_tokens) {
    const int32_t last = tokens_.back();
    if (spec_.eos_token_id && last == *spec_.eos_token_id) return SeqFinish::kStop;
    const auto& stops = spec_.stop_token_ids;
    if (std::find(stops.begin(), stops.end(), last) != stops.end()) {
      *stop_token_id = last;
      return SeqFinish::kStop;
    }
  }
  if (num_tokens() >= max_model_len || num_output_tokens() >= spec_.max_tokens) return SeqFinish::kLength;
  return SeqFinish::kNone;
}

}  // namespace gemmad::sched
