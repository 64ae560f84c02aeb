// Scheduler: vLLM v1's token-budget scheduler. Every step it first gives running sequences the
// tokens they lack (decode = 1, unfinished prefill = the rest of the prompt, capped by the
// budget), preempting the most recently admitted running sequences (recompute: blocks freed,
// back to the head of the queue) when KV blocks run out; then, if nothing was preempted,
// admits waiting sequences in FCFS order after a prefix-cache lookup while budget, blocks and
// --max-num-seqs allow. Chunked prefill falls out of the budget cap. A decoding sequence with
// speculative drafts is scheduled with them (they count in the token budget; when blocks run
// short the drafts go before anyone is preempted).
// Invariant: running sequences hold blocks for [0, num_computed_tokens); waiting ones none.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "kv/kv_cache_manager.h"
#include "sched/scheduler_output.h"
#include "sched/sequence.h"

namespace gemmad::sched {

struct SchedulerConfig {
  int32_t max_num_seqs = 256;
  int32_t max_num_batched_tokens = 2048;
  int64_t max_model_len = 4096;
};

struct SeqUpdate {
  SeqId seq_id = 0;
  std::vector<int32_t> new_token_ids;
  SeqFinish finish = SeqFinish::kNone;
  std::optional<int32_t> stop_token_id;
};

struct SchedulerStats {  // cumulative
  uint64_t num_preemptions = 0;
  uint64_t prefix_cache_queries = 0;  // tokens looked up
  uint64_t prefix_cache_hits = 0;     // tokens found
};

class Scheduler {
 public:
  Scheduler(SchedulerConfig config, kv::KvCacheConfig kv_config);

  // Queues a sequence of an admitted request (engine::ValidateRequest checked that prompt +
  // max_tokens fits max_model_len and max_sequence_tokens(); breaking that is a bug).
  void Add(SequenceSpec spec);
  // Removes a sequence (abort, error, finish) and frees its blocks now; the next
  // SchedulerOutput names it in finished_seq_ids if the runner saw it. False if unknown.
  bool Remove(SeqId id);

  // One step: scheduled sequences, the new ones among them (announced once), and the ids
  // that finished since the previous step.
  SchedulerOutput Schedule();
  // Applies a step: sampled[i] are the tokens sampled for out.seqs[i] (empty if none): with
  // drafts, the accepted drafts followed by one token of the target's own. Advances
  // num_computed_tokens (over the accepted drafts, not the rejected ones, whose KV slots are
  // simply overwritten later), appends tokens, checks stops, registers computed blocks in the
  // prefix cache, and frees finished sequences (which leave the scheduler). drafts[i] (optional:
  // empty span = none) are the runner's new drafts for out.seqs[i], verified in its next step.
  std::vector<SeqUpdate> Update(const SchedulerOutput& out, std::span<const std::vector<int32_t>> sampled,
                                std::span<const std::vector<int32_t>> drafts = {});

  const Sequence* Find(SeqId id) const;
  int64_t num_running() const { return static_cast<int64_t>(running_.size()); }
  int64_t num_waiting() const { return static_cast<int64_t>(waiting_.size()); }
  bool has_work() const { return !running_.empty() || !waiting_.empty(); }
  const SchedulerStats& stats() const { return stats_; }
  const kv::KvCacheManager& kv() const { return kv_; }
  const SchedulerConfig& config() const { return config_; }
  // The longest prompt + output a single sequence may have (max_model_len and KV capacity).
  int64_t max_sequence_tokens() const { return max_sequence_tokens_; }

  // Aborts when a scheduler or KV invariant is broken (tests call it after every step).
  void CheckInvariants() const;

 private:
  void Preempt(Sequence* seq);
  ScheduledSeq MakeScheduled(const Sequence& seq, int64_t num_computed, int64_t num_new, int64_t num_drafts = 0) const;
  // How many of a decode sequence's drafts fit: the token budget (after its own token) and
  // max_tokens (which admission keeps within the longest sequence the KV cache holds).
  int64_t UsableDrafts(const Sequence& seq, int64_t budget) const;
  bool ScheduleRunning(SchedulerOutput* out, int64_t* budget);
  void ScheduleWaiting(SchedulerOutput* out, int64_t* budget);

  SchedulerConfig config_;
  kv::KvCacheManager kv_;
  int64_t max_sequence_tokens_ = 0;
  std::unordered_map<SeqId, std::unique_ptr<Sequence>> seqs_;
  std::vector<Sequence*> running_;  // admission order
  std::deque<Sequence*> waiting_;
  std::vector<SeqId> finished_;  // announced sequences removed since the last Schedule
  SchedulerStats stats_;
};

}  // namespace gemmad::sched
