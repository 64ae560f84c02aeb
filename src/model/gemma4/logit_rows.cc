// Logit-row batches and in-place row compaction.
#include "model/gemma4/logit_rows.h"

#include "kernels/ops.h"

namespace gemmad::model::gemma4 {

ForwardBatch LogitRowsBatch(const ForwardBatch& batch, std::vector<int64_t>* source_rows) {
  ForwardBatch out;
  source_rows->clear();
  for (const auto& sq : batch.sequences) {
    for (int32_t off : sq.logit_offsets) {
      const int64_t row = sq.token_begin + off;
      SequenceInBatch one;
      one.token_begin = out.num_tokens();
      one.num_tokens = 1;
      one.num_computed_tokens = sq.num_computed_tokens + off;
      one.logit_offsets = {0};
      one.block_tables = sq.block_tables;
      one.bidirectional_spans = sq.bidirectional_spans;  // the row still sees its span's later keys
      out.token_ids.push_back(batch.token_ids[row]);
      out.positions.push_back(batch.positions[row]);
      out.sequences.push_back(std::move(one));
      source_rows->push_back(row);
    }
  }
  return out;
}

void CompactRows(const kernels::ExecContext& exec, Scratch& buffer, int64_t n, int64_t width,
                 const std::vector<int64_t>& source_rows) {
  const tensor::TensorView all = buffer.View({n, width});
  tensor::TensorView kept = all;
  kept.shape = tensor::Shape{static_cast<int64_t>(source_rows.size()), width};
  const tensor::TensorView rows{const_cast<int64_t*>(source_rows.data()), tensor::DType::kI64,
                                tensor::Shape{static_cast<int64_t>(source_rows.size())}};
  kernels::GatherRows(exec, all, rows, kept);
}

}  // namespace gemmad::model::gemma4
