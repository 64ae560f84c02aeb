// AttentionSequence: the tokens of one sequence inside a flattened batch and where its keys live
// (the paged-attention op's per-sequence argument, shared by every backend).
#pragma once

#include <cstdint>

namespace gemmad::kernels {

struct AttentionSequence {
  int64_t token_begin = 0;      // first row of q/out belonging to the sequence
  int64_t num_tokens = 0;       // its rows are [token_begin, token_begin + num_tokens)
  int64_t first_kv_index = 0;   // key index of its first query row (tokens already cached)
  const int32_t* block_table = nullptr;  // logical block -> physical block (-1 = freed); host memory
  int64_t block_table_size = 0;
  // Per query row [num_tokens], one past the last key index it reads; null = causal (its own key
  // index + 1). A row may read later keys of its sequence (a query inside a bidirectional span
  // sees the span's later keys), which must already be in the cache. Host memory.
  const int64_t* key_end = nullptr;
};

}  // namespace gemmad::kernels
