// SchedulerOutput: the plain-data description of one engine step that the runner executes,
// and the only way per-sequence state reaches the runner (new sequences, finished ids).
// No prefill/decode modes: each scheduled sequence computes num_scheduled_tokens tokens from
// num_computed_tokens on (a prompt chunk, a whole prompt, or one decode token plus its drafts).
// Invariant: sum of num_scheduled_tokens == total_num_scheduled_tokens <= the token budget;
// each block table covers every scheduled position (entries before a sliding window are
// kv::kNullBlock and are never read).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kv/types.h"
#include "mm/item.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"

namespace gemmad::sched {

struct ScheduledSeq {
  kv::SeqId seq_id = 0;
  int64_t num_computed_tokens = 0;  // positions [0, num_computed_tokens) are already cached
  int32_t num_scheduled_tokens = 0;
  // token_ids[i] sits at position num_computed_tokens + i. The last num_draft_tokens of them are
  // speculative drafts (not yet part of the sequence) that the runner verifies.
  std::vector<int32_t> token_ids;
  int32_t num_draft_tokens = 0;
  // Per KV group (kv::KvCacheConfig::groups order): logical block j holds positions
  // [j * block_size, (j + 1) * block_size).
  std::vector<std::vector<kv::BlockId>> block_tables;
  int64_t num_prompt_tokens = 0;
  // True when the scheduled tokens (drafts aside) end at the sequence's last known token: the
  // runner samples the next token from the logits of that position, and with drafts goes on
  // verifying them (1 to num_draft_tokens + 1 tokens come back).
  bool sample = false;
};

// A sequence the runner has not seen before: what it needs to sample it (vLLM v1's
// NewRequestData). Sent once, in the first step that schedules the sequence; the runner keeps
// that state until the id comes back in finished_seq_ids (preemption does not end it).
struct NewSequence {
  kv::SeqId seq_id = 0;
  std::vector<int32_t> prompt_token_ids;
  sample::SamplingParams params;          // Validated, Normalized, n == 1, max_tokens set
  uint64_t seed = 0;                      // the sequence's RNG seed
  std::optional<int32_t> eos_token_id;    // primary EOS (masked until min_tokens)
  std::shared_ptr<sample::TokenConstraint> constraint;  // may be null; the runner owns it now
  std::vector<mm::Item> mm_items;         // what the runner's encoder turns into embeddings
};

struct SchedulerOutput {
  // Sequences scheduled for the first time (each also has an entry in `seqs`).
  std::vector<NewSequence> new_seqs;
  // Sequences that left the scheduler (finished, aborted, failed) since the previous step and
  // had been announced: the runner drops their state before executing this step.
  std::vector<kv::SeqId> finished_seq_ids;
  std::vector<ScheduledSeq> seqs;
  int64_t total_num_scheduled_tokens = 0;
  int32_t block_size = 0;
  // Sequences preempted (blocks freed, to be recomputed) while building this step.
  std::vector<kv::SeqId> preempted_seq_ids;

  bool empty() const { return seqs.empty(); }  // finished ids alone are not a step
};

}  // namespace gemmad::sched
