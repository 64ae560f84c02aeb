// Sequence: one output sequence as the scheduler tracks it (a request with n > 1 is n of them).
// vLLM v1's Request: tokens = prompt + output; num_computed_tokens of them are in the KV cache.
// Invariant: 0 <= num_computed_tokens <= num_tokens; block_hashes covers every full block of
// known tokens (hash i chains hash i-1; block 0 mixes in the cache salt).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kv/block_hash.h"
#include "kv/types.h"

namespace gemmad::sched {

using kv::SeqId;

struct SequenceSpec {
  SeqId id = 0;
  std::vector<int32_t> prompt_token_ids;
  int32_t max_tokens = 1;                // resolved: >= 1
  int32_t min_tokens = 0;
  std::optional<int32_t> eos_token_id;   // unset when ignore_eos (or no EOS)
  std::vector<int32_t> stop_token_ids;
  bool skip_prefix_cache = false;        // e.g. prompt logprobs need every prompt position
  std::string cache_salt;
};

enum class SeqStatus : uint8_t { kWaiting, kRunning, kFinished };
enum class SeqFinish : uint8_t { kNone, kStop, kLength };

class Sequence {
 public:
  Sequence(SequenceSpec spec, int32_t block_size);

  SeqId id() const { return spec_.id; }
  const SequenceSpec& spec() const { return spec_; }
  const std::vector<int32_t>& token_ids() const { return tokens_; }
  int64_t num_tokens() const { return static_cast<int64_t>(tokens_.size()); }
  int64_t num_prompt_tokens() const { return static_cast<int64_t>(spec_.prompt_token_ids.size()); }
  int64_t num_output_tokens() const { return num_tokens() - num_prompt_tokens(); }
  const std::vector<kv::BlockHash>& block_hashes() const { return hashes_; }

  // Appends a generated token and extends block_hashes when a block becomes full.
  void AppendToken(int32_t token);
  // vLLM's check_stop after the last append: min_tokens, EOS, stop ids, then length.
  SeqFinish CheckStop(int64_t max_model_len, std::optional<int32_t>* stop_token_id) const;

  int64_t num_computed_tokens = 0;
  SeqStatus status = SeqStatus::kWaiting;
  std::optional<int64_t> num_cached_tokens;  // prefix hit at first admission (unset before)
  int32_t num_preemptions = 0;

 private:
  void ExtendHashes();

  SequenceSpec spec_;
  int32_t block_size_;
  std::vector<int32_t> tokens_;
  std::vector<kv::BlockHash> hashes_;
};

}  // namespace gemmad::sched
