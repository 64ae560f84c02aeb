// The per-step KV addressing of a ForwardBatch (StepPlan: slots and attention sequences per KV
// group) and the bidirectional vision blocks of use_bidirectional_attention == "vision" models
// (multimodal.md §5.5): on sliding layers a query inside a span also reads the span's later keys
// (AttentionSequence::key_end); full layers and every other query stay causal. Internal to the
// Gemma 4 forward pass.
#pragma once

#include "base/status.h"
#include "model/forward_batch.h"
#include "model/gemma4/step_buffers.h"
#include "model/kv_cache_spec.h"

namespace gemmad::model::gemma4 {

// Slots and attention sequences per KV group. With `bidirectional`, the sliding groups give every
// row inside one of its sequence's bidirectional spans key_end = the span's end (the span's keys
// must all be written by the time the layer attends: CheckBidirectionalSpans); without it the
// spans are ignored (E2B/E4B: use_bidirectional_attention null, everything causal).
StepPlan MakeStepPlan(const ForwardBatch& batch, const KvCacheSpec& spec, bool bidirectional);

// A span that holds some of a sequence's rows in this step must end inside the step: its later
// keys are computed together with its queries (the scheduler never splits a span across prefill
// chunks; a step may start inside a span whose earlier keys are cached, e.g. after a prefix-cache
// hit). Spans entirely before or after the step (decode steps) are fine. InvalidArgument otherwise.
Status CheckBidirectionalSpans(const ForwardBatch& batch);

}  // namespace gemmad::model::gemma4
