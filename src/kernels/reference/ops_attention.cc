// Reference backend: paged KV writes and paged attention. Each sequence's keys and values (up to
// the last key any of its rows reads) are gathered out of their pages into contiguous fp32 arrays,
// then reference::Attention runs on them.
#include <algorithm>
#include <vector>

#include "kernels/reference/attention.h"
#include "kernels/reference/backend_ops.h"
#include "kernels/view_checks.h"
#include "tensor/half.h"

namespace gemmad::kernels::reference::op {
namespace {

using tensor::DType;

void CheckCaches(const TensorView& k_cache, const TensorView& v_cache, const char* what) {
  internal::CheckCacheDType(k_cache, what);
  internal::CheckCacheDType(v_cache, what);
  internal::CheckRank(k_cache, 4, what);
  GEMMAD_CHECK(k_cache.shape == v_cache.shape && k_cache.dtype == v_cache.dtype, "{}: K/V caches differ", what);
}

// Keys [0, num_keys) of one sequence: [num_keys, nkv, d] f32, each KV head's times its scale (an
// FP8 cache's KvScales); keys of freed blocks (-1) stay 0.
std::vector<float> GatherKeys(const TensorView& cache, const AttentionSequence& s, int64_t num_keys,
                              std::span<const float> scales) {
  const int64_t bs = cache.shape[1], row = cache.shape[2] * cache.shape[3], d = cache.shape[3];
  std::vector<float> out(static_cast<size_t>(num_keys * row), 0.0f);
  for (int64_t j = 0; j < num_keys; ++j) {
    GEMMAD_CHECK(j / bs < s.block_table_size, "PagedAttention: key {} beyond the block table ({} blocks)", j,
                 s.block_table_size);
    const int32_t block = s.block_table[j / bs];
    if (block < 0) continue;
    GEMMAD_CHECK(block < cache.shape[0], "PagedAttention: block {} of {}", block, cache.shape[0]);
    const int64_t at = (block * bs + j % bs) * row;
    for (int64_t i = 0; i < row; ++i) {
      out[static_cast<size_t>(j * row + i)] =
          internal::LoadAsFloat(cache.data, cache.dtype, at + i) * internal::KvScaleOf(scales, i / d);
    }
  }
  return out;
}

}  // namespace

void KvCacheWrite(const ExecContext&, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache, const KvScales& scales) {
  internal::CheckDType(k, DType::kF32, "KvCacheWrite k");
  internal::CheckDType(v, DType::kF32, "KvCacheWrite v");
  internal::CheckDType(slots, DType::kI64, "KvCacheWrite slots");
  CheckCaches(k_cache, v_cache, "KvCacheWrite");
  const int64_t n = slots.NumElements(), row = k_cache.shape[2] * k_cache.shape[3];
  const int64_t num_slots = k_cache.shape[0] * k_cache.shape[1];
  GEMMAD_CHECK(k.NumElements() == n * row && v.NumElements() == n * row, "KvCacheWrite: k {} v {} for {} slots of {}",
               k.shape.ToString(), v.shape.ToString(), n, row);
  for (int64_t t = 0; t < n; ++t) {
    const int64_t slot = slots.As<const int64_t>()[t];
    if (slot < 0) continue;
    GEMMAD_CHECK(slot < num_slots, "KvCacheWrite: slot {} outside the cache ({} slots)", slot, num_slots);
    for (int64_t i = 0; i < row; ++i) {
      const int64_t h = i / k_cache.shape[3];
      const float kv[2] = {k.As<const float>()[t * row + i] / internal::KvScaleOf(scales.k, h),
                           v.As<const float>()[t * row + i] / internal::KvScaleOf(scales.v, h)};
      const TensorView* caches[2] = {&k_cache, &v_cache};
      for (int c = 0; c < 2; ++c) {
        if (k_cache.dtype == DType::kF8E4M3) {
          caches[c]->As<uint8_t>()[slot * row + i] = tensor::FloatToE4M3(kv[c]);
        } else if (k_cache.dtype == DType::kBF16) {
          caches[c]->As<uint16_t>()[slot * row + i] = tensor::FloatToBf16(kv[c]);
        } else {
          caches[c]->As<float>()[slot * row + i] = kv[c];
        }
      }
    }
  }
}

void PagedAttention(const ExecContext&, const TensorView& q, const TensorView& k_cache, const TensorView& v_cache,
                    std::span<const AttentionSequence> sequences, int64_t window, float scale, const TensorView& out,
                    const KvScales& scales) {
  internal::CheckDType(q, DType::kF32, "PagedAttention q");
  internal::CheckDType(out, DType::kF32, "PagedAttention out");
  internal::CheckRank(q, 3, "PagedAttention q");
  CheckCaches(k_cache, v_cache, "PagedAttention");
  const int64_t nH = q.shape[1], d = q.shape[2], nkv = k_cache.shape[2];
  GEMMAD_CHECK(out.shape == q.shape && k_cache.shape[3] == d && nkv > 0 && nH % nkv == 0 && q.data != out.data,
               "PagedAttention: q {} cache {} out {}", q.shape.ToString(), k_cache.shape.ToString(),
               out.shape.ToString());
  for (const AttentionSequence& s : sequences) {
    if (s.num_tokens == 0) continue;
    GEMMAD_CHECK(s.token_begin >= 0 && s.token_begin + s.num_tokens <= q.shape[0], "PagedAttention: rows [{}, {}) of {}",
                 s.token_begin, s.token_begin + s.num_tokens, q.shape[0]);
    // Keys up to the last one any row reads: its own (causal) or its key_end.
    int64_t num_keys = s.first_kv_index + s.num_tokens;
    std::vector<int64_t> q_index(static_cast<size_t>(s.num_tokens));
    for (int64_t i = 0; i < s.num_tokens; ++i) {
      q_index[static_cast<size_t>(i)] = s.first_kv_index + i;
      if (s.key_end != nullptr) {
        GEMMAD_CHECK(s.key_end[i] > s.first_kv_index + i, "PagedAttention: key_end {} of row {} at key {}", s.key_end[i],
                     i, s.first_kv_index + i);
        num_keys = std::max(num_keys, s.key_end[i]);
      }
    }
    const std::vector<float> keys = GatherKeys(k_cache, s, num_keys, scales.k);
    const std::vector<float> values = GatherKeys(v_cache, s, num_keys, scales.v);
    reference::Attention(q.As<const float>() + s.token_begin * nH * d, s.num_tokens, nH, keys.data(), values.data(),
                         num_keys, nkv, d, q_index.data(), s.key_end, window, scale,
                         out.As<float>() + s.token_begin * nH * d);
  }
}

}  // namespace gemmad::kernels::reference::op
