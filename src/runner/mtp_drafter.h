// MtpDrafter: speculative drafts from a Gemma 4 assistant (MTP; text-model.md §12.3), made by the
// ModelRunner right after a step. For a sequence whose step sampled tokens (its accepted drafts,
// then the target's own token tau at position p), the first draft step takes tau's target
// embedding and the target's final-normed hidden state of the row that predicted tau (position
// p - 1), and attends over the target's cache of the donor layers up to key p - 1 (the accepted
// sequence only: rejected drafts' slots past it are never read); each further step takes the
// previous draft and backbone, at the same position. Drafts are greedy, as vLLM's and
// transformers' are.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/assistant.h"
#include "model/gemma4/model.h"
#include "model/kv_cache.h"
#include "sched/scheduler_output.h"

namespace gemmad::runner {

class MtpDrafter {
 public:
  // `assistant` must fit `target` (Assistant::Load checked it).
  MtpDrafter(std::unique_ptr<model::gemma4::Assistant> assistant, const model::gemma4::Model& target,
             int32_t num_tokens);

  int32_t num_tokens() const { return num_tokens_; }
  // Drafts for `s` after its step: `offset` is the scheduled-token offset of the row that
  // predicted `token` (the last sampled one), `hidden` that row's final-normed hidden state [H].
  Result<std::vector<int32_t>> Propose(const kernels::ExecContext& exec, const sched::ScheduledSeq& s,
                                       int32_t offset, std::span<const float> hidden, int32_t token,
                                       const model::KvCache& cache) const;

 private:
  std::unique_ptr<model::gemma4::Assistant> assistant_;
  const model::gemma4::Model& target_;
  int32_t num_tokens_;
  int64_t donor_sliding_ = -1, donor_full_ = -1;  // target layers
};

}  // namespace gemmad::runner
