// ForwardBatch: one model step over several sequences at once (continuous batching), as plain
// data. Tokens of all sequences are flattened; each sequence names its token range, how many of
// its tokens are already in the KV cache, which of its rows need logits, and one block table per
// KV group (KvCacheSpec::groups order). Prefill, chunked prefill and decode are the same thing.
//
// Invariants checked by ValidateForwardBatch: sequence ranges are disjoint and inside the batch;
// token i of a sequence has key index num_computed_tokens + i and is written to logical block
// (num_computed_tokens + i) / block_size; every block the step reads or writes is a valid
// physical id. Entries below a sliding group's FirstLiveBlock are never read (-1, or the
// engine's null block).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "model/kv_cache_spec.h"

namespace gemmad::model {

// Rows whose input embedding is given (a multimodal encoder's output, inserted unscaled) instead
// of looked up from their token ids (multimodal.md §5).
struct EmbeddingOverride {
  int64_t row = 0;              // first row in ForwardBatch::token_ids
  int64_t num_rows = 0;
  const float* data = nullptr;  // [num_rows, hidden_size]; valid for the step
};

// Key indices [begin, end) of one sequence whose tokens see each other both ways on sliding
// layers (a vision block of a model with use_bidirectional_attention == "vision").
struct BidirectionalSpan {
  int64_t begin = 0;
  int64_t end = 0;
};

struct SequenceInBatch {
  int64_t token_begin = 0;          // first row in ForwardBatch::token_ids
  int64_t num_tokens = 0;           // rows [token_begin, token_begin + num_tokens)
  int64_t num_computed_tokens = 0;  // tokens of this sequence already in the KV cache
  // Offsets in [0, num_tokens), strictly ascending, whose logits are wanted (usually the last).
  std::vector<int32_t> logit_offsets;
  // Per KV group: logical block -> physical block id (entries below the live window: any value).
  std::vector<std::vector<int32_t>> block_tables;
  // Bidirectional spans of this sequence, ascending and disjoint (whole spans, even where the step
  // covers part; the model reads them only if its config asks for vision blocks).
  std::vector<BidirectionalSpan> bidirectional_spans;
};

struct ForwardBatch {
  std::vector<int32_t> token_ids;  // [num_tokens]
  std::vector<int32_t> positions;  // [num_tokens] RoPE positions (the key index for text)
  std::vector<SequenceInBatch> sequences;
  // Disjoint, ascending; every row inside the batch.
  std::vector<EmbeddingOverride> embedding_overrides;

  int64_t num_tokens() const { return static_cast<int64_t>(token_ids.size()); }
  // Logit rows are ordered by sequence, then by logit offset.
  int64_t num_logit_rows() const;
};

// Checks the invariants above against a cache with `num_blocks[g]` blocks per group and a
// vocabulary of `vocab_size`. Errors are InvalidArgument with a message naming the sequence.
Status ValidateForwardBatch(const ForwardBatch& batch, const KvCacheSpec& spec,
                            const std::vector<int64_t>& num_blocks, int64_t vocab_size);

// Convenience for tests and `gemmad generate`: one sequence whose tokens are
// [num_computed, num_computed + ids.size()), positions equal to key indices, logits for the
// last row only (or every row when all_logits).
ForwardBatch SingleSequenceBatch(const std::vector<int32_t>& ids, int64_t num_computed,
                                 std::vector<std::vector<int32_t>> block_tables, bool all_logits);

}  // namespace gemmad::model
