// SamplingRegistry: the sampling half of every Runner. Keeps one SequenceSampler per sequence
// (from SchedulerOutput::new_seqs until its id is in finished_seq_ids),
// says which logits rows a scheduled sequence needs this step (prompt-logprob positions not yet
// reported, then the last position when it samples, and one more per speculative draft), and
// turns those rows into results. Drafts are verified by sampling: row j is sampled exactly as
// plain decoding would sample that position (same grammar state, penalties, random draw), and
// verification goes on to row j + 1 only while the sampled token equals draft j. So every output
// is the one plain decoding gives (greedy and seeded sampling token for token; unseeded in
// distribution): for a point-mass draft this is speculative rejection sampling (accept with
// probability p(draft), else a sample from p without the draft, renormalised).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "runner/runner.h"
#include "sample/sequence_sampler.h"

namespace gemmad::runner {

class SamplingRegistry {
 public:
  explicit SamplingRegistry(int32_t vocab_size) : vocab_size_(vocab_size) {}

  // Drops the state of out.finished_seq_ids and creates it for out.new_seqs (first thing in
  // every Execute).
  void Apply(const sched::SchedulerOutput& out);
  bool Has(kv::SeqId id) const { return seqs_.count(id) != 0; }
  // True when the sequence samples under a grammar (its Consume must stay on the engine thread).
  bool HasConstraint(kv::SeqId id) const;
  size_t size() const { return seqs_.size(); }

  // Offsets into the scheduled tokens (0 = position num_computed_tokens) whose logits the
  // step needs, ascending.
  std::vector<int32_t> LogitRows(const sched::ScheduledSeq& s) const;
  // `rows` holds LogitRows(s).size() logits rows of vocab_size floats, in that order; they are
  // used as scratch. Calls for different sequences may run concurrently (never during Apply).
  // Sampling's kernel ops run on `exec` (pass it without a pool from a parallel task).
  SeqStepResult Consume(const sched::ScheduledSeq& s, std::span<float> rows, const kernels::ExecContext& exec = {});
  // See runner.h (set before the first step).
  void set_logits_hook(LogitsHook hook) { hook_ = std::move(hook); }
  void set_drafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) {
    drafter_ = std::move(drafter);
    num_draft_tokens_ = num_tokens;
  }

 private:
  struct Entry {
    std::unique_ptr<sample::SequenceSampler> sampler;
    std::vector<int32_t> prompt;
    int32_t num_prompt_logprobs = -1;  // -1 = not requested
    bool has_constraint = false;
    int64_t prompt_logprobs_done = 1;  // next prompt token index to score
  };
  int32_t vocab_size_;
  LogitsHook hook_;
  std::shared_ptr<const spec::TokenDrafter> drafter_;
  int32_t num_draft_tokens_ = 0;
  std::unordered_map<kv::SeqId, Entry> seqs_;
};

}  // namespace gemmad::runner
