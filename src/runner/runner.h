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

namespace gemmad::runner {

struct SeqStepResult {
  kv::SeqId seq_id = 0;
  std::vector<int32_t> sampled_token_ids;            // empty unless ScheduledSeq::sample
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
// sampler sees it (the grammar mask and the request's processors still apply). May be called
// concurrently for different sequences.
using LogitsHook = std::function<void(const sched::ScheduledSeq& seq, std::span<float> row)>;

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
};

}  // namespace gemmad::runner
