// Sequence: token bookkeeping, incremental block hashes and the stop check.
#include "sched/sequence.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>

namespace gemmad::sched {

Sequence::Sequence(SequenceSpec spec, int32_t block_size)
    : spec_(std::move(spec)), block_size_(block_size), tokens_(spec_.prompt_token_ids) {
  tokens_.reserve(tokens_.size() + static_cast<size_t>(spec_.params.max_tokens.value_or(0)));
  ExtendHashes();
}

void Sequence::ExtendHashes() {
  const size_t bs = static_cast<size_t>(block_size_);
  while ((hashes_.size() + 1) * bs <= tokens_.size()) {
    const size_t i = hashes_.size();
    std::span<const int32_t> block(tokens_.data() + i * bs, bs);
    const kv::BlockHash* parent = i == 0 ? nullptr : &hashes_.back();
    hashes_.push_back(kv::HashBlock(parent, block, ExtraKeys(i)));
  }
}

std::string Sequence::ExtraKeys(size_t block) const {
  std::string extra = block == 0 ? spec_.cache_salt : std::string();
  const int64_t begin = static_cast<int64_t>(block) * block_size_, end = begin + block_size_;
  for (const mm::Item& item : spec_.mm_items) {
    if (item.placeholder_offset >= end || item.placeholder_end() <= begin) continue;
    extra.append(reinterpret_cast<const char*>(&item.hash.hi), sizeof(item.hash.hi));
    extra.append(reinterpret_cast<const char*>(&item.hash.lo), sizeof(item.hash.lo));
  }
  return extra;
}

int64_t Sequence::ClampChunkEnd(int64_t begin, int64_t end) const {
  for (const mm::Item& item : spec_.mm_items) {
    if (!item.bidirectional) continue;
    const int64_t o = item.placeholder_offset, e = item.placeholder_end();
    if (e <= begin || o >= end || end >= e) continue;  // the chunk does not end inside this span
    return o > begin ? o : begin;
  }
  return end;
}

NewSequence Sequence::Announce() {
  announced_ = true;
  NewSequence n;
  n.seq_id = spec_.id;
  n.prompt_token_ids = spec_.prompt_token_ids;
  n.params = spec_.params;
  n.seed = spec_.seed;
  n.eos_token_id = spec_.eos_token_id;
  n.constraint = std::move(spec_.constraint);
  n.mm_items = spec_.mm_items;
  return n;
}

void Sequence::AppendToken(int32_t token) {
  tokens_.push_back(token);
  ExtendHashes();
}

SeqFinish Sequence::CheckStop(int64_t max_model_len, std::optional<int32_t>* stop_token_id) const {
  stop_token_id->reset();
  if (num_output_tokens() == 0) return SeqFinish::kNone;
  if (num_output_tokens() >= spec_.params.min_tokens) {
    const int32_t last = tokens_.back();
    if (spec_.eos_token_id && !spec_.params.ignore_eos && last == *spec_.eos_token_id) return SeqFinish::kStop;
    const auto& stops = spec_.params.stop_token_ids;
    if (std::find(stops.begin(), stops.end(), last) != stops.end()) {
      *stop_token_id = last;
      return SeqFinish::kStop;
    }
  }
  if (num_tokens() >= max_model_len || num_output_tokens() >= spec_.params.max_tokens.value_or(0)) return SeqFinish::kLength;
  return SeqFinish::kNone;
}

}  // namespace gemmad::sched
