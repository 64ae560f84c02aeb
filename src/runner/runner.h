// Runner: what the engine thread calls to execute one step: a plain-data SchedulerOutput in, a
// plain-data StepResult out. It owns the per-sequence sampling state, created from the step's
// new_seqs and dropped for its finished_seq_ids: nothing else reaches it. Implementations:
// FakeRunner (tests), ModelRunner (the real model), ScriptedRunner (test binary only).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <optional>
#include <vector>

#include "base/result.h"
#include "kv/types.h"
#include "mm/item.h"
#include "sample/logprobs.h"
#include "sched/scheduler_output.h"
#include "spec/drafter.h"

namespace gemmad::runner {

struct SeqStepResult {
  kv::SeqId seq_id = 0;
  // Empty unless ScheduledSeq::sample. With drafts: the accepted drafts, then the target's token
  // at the first rejection (or after the last draft): 1 to num_draft_tokens + 1 ids.
  std::vector<int32_t> sampled_token_ids;
  // Drafts for the tokens after the last sampled one (speculative decoding; verified next step).
  std::vector<int32_t> draft_token_ids;
  std::vector<sample::TokenLogprobs> logprobs;       // one per sampled token, if requested
  // Prompt logprobs computed in this step: entry i scores prompt token
  // prompt_logprobs_first + i (>= 1). Positions already reported (before a preemption) are
  // not reported again.
  int64_t prompt_logprobs_first = 0;
  std::vector<sample::TokenLogprobs> prompt_logprobs;
  Status error;  // this sequence failed (grammar rejection, ...); the step itself succeeded
};

struct StepResult {
  std::vector<SeqStepResult> seqs;  // seqs[i] belongs to SchedulerOutput::seqs[i]
};

// Test seam (ScriptedRunner): called with a sequence's sampling logits row right before the
// sampler sees it (the grammar mask and the request's processors still apply); `offset` is the
// row's position among the scheduled tokens (it predicts the token at offset + 1). May be called
// concurrently for different sequences.
using LogitsHook = std::function<void(const sched::ScheduledSeq& seq, int32_t offset, std::span<float> row)>;

class Runner {
 public:
  virtual ~Runner() = default;
  virtual int32_t vocab_size() const = 0;
  // A non-ok result means the step (and the engine) failed.
  virtual Result<StepResult> Execute(const sched::SchedulerOutput& out) = 0;
  // Whether requests may carry items of this modality (the engine rejects others at admission).
  virtual bool SupportsModality(mm::Modality modality) const { return false; }
  // Installs a LogitsHook (before the first step); false when not supported.
  virtual bool SetLogitsHook(LogitsHook hook) { return false; }
  // Speculative decoding from the sequences' tokens (before the first step): every sampling
  // sequence gets up to `num_tokens` drafts from `drafter` after each step. False when not
  // supported.
  virtual bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) { return false; }
};

}  // namespace gemmad::runner
