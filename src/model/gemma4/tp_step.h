// The message rank 0 of a tensor-parallel group broadcasts before each forward step (docs/
// tensor-parallel.md): the step's ForwardBatch (plain data, embedding overrides copied), the KV
// cache geometry (so a worker creates its shard of the cache on the first step, with the block
// counts rank 0's engine planned), and whether every row's hidden states are recorded (which
// changes the rows the later layers compute, hence the collectives' sizes). A stop message ends
// the workers' loop.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "model/forward_batch.h"
#include "tensor/dtype.h"

namespace gemmad::model::gemma4 {

struct TpStep {
  bool stop = false;
  int64_t block_size = 0;
  tensor::DType kv_dtype = tensor::DType::kBF16;
  std::vector<int64_t> num_blocks;  // per KV group
  bool record_hidden = false;
  ForwardBatch batch;                // embedding_overrides point into override_data
  std::vector<float> override_data;  // [Σ override rows, hidden_size]
};

// hidden_size: the width of each embedding override row. The first form encodes `batch` with the
// other fields of `header` (whose own batch is ignored), so a step is sent without copying it.
std::vector<uint8_t> EncodeTpStep(const TpStep& header, const ForwardBatch& batch, int64_t hidden_size);
std::vector<uint8_t> EncodeTpStep(const TpStep& step, int64_t hidden_size);
std::vector<uint8_t> EncodeTpStop();
// InvalidArgument on a truncated or inconsistent message.
Result<TpStep> DecodeTpStep(const std::vector<uint8_t>& bytes, int64_t hidden_size);

}  // namespace gemmad::model::gemma4
