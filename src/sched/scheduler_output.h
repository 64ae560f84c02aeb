// SchedulerOutput: the plain-data description of one engine step that the runner executes.
// No prefill/decode modes: each scheduled sequence computes num_scheduled_tokens tokens from
// num_computed_tokens on (a prompt chunk, a whole prompt, or one decode token).
// Invariant: sum of num_scheduled_tokens == total_num_scheduled_tokens <= the token budget;
// each block table covers every scheduled position (entries before a sliding window are
// kv::kNullBlock and are never read).
#pragma once

#include <cstdint>
#include <vector>

#include "kv/types.h"

namespace gemmad::sched {

struct ScheduledSeq {
  kv::SeqId seq_id = 0;
  int64_t num_computed_tokens = 0;  // positions [0, num_computed_tokens) are already cached
  int32_t num_scheduled_tokens = 0;
  // token_ids[i] sits at position num_computed_tokens + i.
  std::vector<int32_t> token_ids;
  // Per KV group (kv::KvCacheConfig::groups order): logical block j holds positions
  // [j * block_size, (j + 1) * block_size).
  std::vector<std::vector<kv::BlockId>> block_tables;
  int64_t num_prompt_tokens = 0;
  // True when the scheduled tokens end at the sequence's last known token: the runner
  // samples the next token from the logits of the last position.
  bool sample = false;
};

struct SchedulerOutput {
  std::vector<ScheduledSeq> seqs;
  int64_t total_num_scheduled_tokens = 0;
  int32_t block_size = 0;
  // Sequences preempted (blocks freed, to be recomputed) while building this step.
  std::vector<kv::SeqId> preempted_seq_ids;

  bool empty() const { return seqs.empty(); }
};

}  // namespace gemmad::sched
