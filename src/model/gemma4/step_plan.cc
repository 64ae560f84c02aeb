// StepPlan construction and the bidirectional-span checks.
#include "model/gemma4/step_plan.h"

#include <algorithm>
#include <string>

namespace gemmad::model::gemma4 {
namespace {

// Whether span [b, e) holds any of the step's key indices [first, end).
bool Overlaps(const BidirectionalSpan& span, int64_t first, int64_t end) { return span.begin < end && span.end > first; }

bool HasSpanInStep(const SequenceInBatch& sq) {
  const int64_t first = sq.num_computed_tokens, end = first + sq.num_tokens;
  return std::any_of(sq.bidirectional_spans.begin(), sq.bidirectional_spans.end(),
                     [&](const BidirectionalSpan& s) { return Overlaps(s, first, end); });
}

}  // namespace

StepPlan MakeStepPlan(const ForwardBatch& batch, const KvCacheSpec& spec, bool bidirectional) {
  StepPlan plan;
  plan.groups.resize(spec.groups.size());
  const int64_t n = batch.num_tokens();
  const bool any_span = bidirectional && std::any_of(batch.sequences.begin(), batch.sequences.end(), HasSpanInStep);
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    GroupPlan& gp = plan.groups[g];
    const int64_t bs = spec.groups[g].block_size;
    gp.slots.assign(static_cast<size_t>(n), -1);
    // Full-attention layers stay causal (transformers 5.25.0 create_masks_for_vision_model).
    if (any_span && spec.groups[g].kind == KvGroupKind::kSliding) gp.key_end.assign(static_cast<size_t>(n), 0);
    for (const auto& sq : batch.sequences) {
      const auto& table = sq.block_tables[g];
      for (int64_t i = 0; i < sq.num_tokens; ++i) {
        const int64_t j = sq.num_computed_tokens + i;
        gp.slots[sq.token_begin + i] = static_cast<int64_t>(table[j / bs]) * bs + j % bs;
      }
      const bool spans = !gp.key_end.empty() && HasSpanInStep(sq);
      if (spans) {
        int64_t* ends = gp.key_end.data() + sq.token_begin;  // [num_tokens]
        for (int64_t i = 0; i < sq.num_tokens; ++i) ends[i] = sq.num_computed_tokens + i + 1;
        for (const BidirectionalSpan& s : sq.bidirectional_spans) {
          const int64_t lo = std::max(s.begin, sq.num_computed_tokens);
          const int64_t hi = std::min(s.end, sq.num_computed_tokens + sq.num_tokens);
          for (int64_t j = lo; j < hi; ++j) ends[j - sq.num_computed_tokens] = s.end;
        }
      }
      gp.sequences.push_back({sq.token_begin, sq.num_tokens, sq.num_computed_tokens, table.data(),
                              static_cast<int64_t>(table.size()),
                              spans ? gp.key_end.data() + sq.token_begin : nullptr});
    }
  }
  return plan;
}

Status CheckBidirectionalSpans(const ForwardBatch& batch) {
  for (size_t s = 0; s < batch.sequences.size(); ++s) {
    const SequenceInBatch& sq = batch.sequences[s];
    const int64_t first = sq.num_computed_tokens, end = first + sq.num_tokens;
    for (const BidirectionalSpan& span : sq.bidirectional_spans) {
      if (Overlaps(span, first, end) && span.end > end) {
        return InvalidArgumentError(
            "forward batch: sequence " + std::to_string(s) + ": bidirectional span [" + std::to_string(span.begin) +
            ", " + std::to_string(span.end) + ") ends after this step's tokens [" + std::to_string(first) + ", " +
            std::to_string(end) + "): a vision block's queries need all of its keys, so a span is never split "
                                  "across prefill chunks");
      }
    }
  }
  return OkStatus();
}

}  // namespace gemmad::model::gemma4
