// Skipping KV-shared layers for rows whose logits are not wanted (text-model.md §6, vLLM's
// kv_sharing_fast_prefill): KV-shared layers write no cache, so once the last KV-owning layer has
// run only the logit rows matter. Exact: the kept rows compute what they would have computed.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/context.h"
#include "model/forward_batch.h"
#include "model/gemma4/step_buffers.h"

namespace gemmad::model::gemma4 {

// A batch of only the logit rows of `batch`, each its own one-row sequence at its key index with
// the same block tables and bidirectional spans; `source_rows` receives each kept row's row in `batch` (ascending).
ForwardBatch LogitRowsBatch(const ForwardBatch& batch, std::vector<int64_t>* source_rows);

// Moves rows source_rows[i] (ascending) of a [n, width] buffer to row i, in place (GatherRows op).
void CompactRows(const kernels::ExecContext& exec, Scratch& buffer, int64_t n, int64_t width,
                 const std::vector<int64_t>& source_rows);

}  // namespace gemmad::model::gemma4
