// Scalar reference attention over contiguous K/V (text-model.md §5.4): causal, optional sliding
// window of W keys including the query's own, optional later keys per query (multimodal.md §5.5), GQA (query head h reads KV head h / (nH / nkv)),
// full softmax in double. The paged kernels are tested against this after gathering their pages.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// q: [num_q, num_heads, head_dim]; k, v: [num_k, num_kv_heads, head_dim];
// q_index: [num_q], the key index each query sits at (keys 0..q_index are causal-visible);
// key_end: null, or [num_q] with key_end[t] > q_index[t]: query t also sees keys up to key_end[t] - 1
// (a bidirectional span's later keys); window: 0 = full attention, else only keys j with
// j > q_index - window (it bounds past keys, never the later ones); out: [num_q, num_heads, head_dim].
void Attention(const float* q, int64_t num_q, int64_t num_heads, const float* k, const float* v,
               int64_t num_k, int64_t num_kv_heads, int64_t head_dim, const int64_t* q_index,
               const int64_t* key_end, int64_t window, float scale, float* out);

}  // namespace gemmad::kernels::reference
