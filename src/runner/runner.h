// Runner: what the engine thread calls to execute one step. It owns the per-sequence sampling
// state (registered with AddSequence, dropped with RemoveSequence) and turns a plain-data
// SchedulerOutput into a plain-data StepResult. Implementations: FakeRunner (tests) and
// ModelRunner (the real model).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <optional>
#include <vector>

#include "base/result.h"
#include "kv/types.h"
#include "sample/logprobs.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"
#include "sched/scheduler_output.h"

namespace gemmad::runner {

struct SequenceSetup {
  kv::SeqId seq_id = 0;
  std::vector<int32_t> prompt_token_ids;
  sample::SamplingParams params;  // Normalized and Validated
  uint64_t seed = 0;              // the sequence's RNG seed (resolved by the engine)
  std::optional<int32_t> eos_token_id;
  std::unique_ptr<sample::TokenConstraint> constraint;  // may be null
};

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
  virtual Status AddSequence(SequenceSetup setup) = 0;
  virtual void RemoveSequence(kv::SeqId id) = 0;
  // A non-ok result means the step (and the engine) failed.
  virtual Result<StepResult> Execute(const sched::SchedulerOutput& out) = 0;
  // Installs a LogitsHook (before the first AddSequence); false when not supported.
  virtual bool SetLogitsHook(LogitsHook hook) { return false; }
};

}  // namespace gemmad::runner
