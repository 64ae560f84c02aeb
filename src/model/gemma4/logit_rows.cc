// Logit-row batches and in-place row compaction.
#include "model/gemma4/logit_rows.h"

#include <algorithm>

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
      out.token_ids.push_back(batch.token_ids[row]);
      out.positions.push_back(batch.positions[row]);
      out.sequences.push_back(std::move(one));
      source_rows->push_back(row);
    }
  }
  return out;
}

void CompactRows(Scratch& buffer, int64_t n, int64_t width, const std::vector<int64_t>& source_rows) {
  float* p = buffer.View({n, width}).As<float>();
  for (size_t i = 0; i < source_rows.size(); ++i) {
    GEMMAD_CHECK(source_rows[i] >= static_cast<int64_t>(i) && source_rows[i] < n, "CompactRows: row {}", source_rows[i]);
    if (source_rows[i] != static_cast<int64_t>(i)) std::copy_n(p + source_rows[i] * width, width, p + i * width);
  }
}

}  // namespace gemmad::model::gemma4
