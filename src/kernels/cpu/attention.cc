// Paged KV writes and paged causal attention with online softmax (one task per query row and
// head). Keys are visited block by block through the sequence's block table; keys below the
// sliding window are never touched.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/view_checks.h"
#include "kernels/ops.h"

namespace gemmad::kernels {
namespace {

void CheckCache(const TensorView& c, const char* what) {
  internal::CheckWeightDType(c, what);
  internal::CheckRank(c, 4, what);
}

template <typename T>
inline float Dot(const float* q, const T* k, int64_t d) {
  float acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= d; i += 4) {
    for (int j = 0; j < 4; ++j) {
      if constexpr (sizeof(T) == 2) {
        acc[j] += q[i + j] * tensor::Bf16ToFloat(k[i + j]);
      } else {
        acc[j] += q[i + j] * k[i + j];
      }
    }
  }
  for (; i < d; ++i) {
    if constexpr (sizeof(T) == 2) {
      acc[0] += q[i] * tensor::Bf16ToFloat(k[i]);
    } else {
      acc[0] += q[i] * k[i];
    }
  }
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

template <typename T>
inline void Axpy(float a, const T* v, float* out, int64_t d) {
  for (int64_t i = 0; i < d; ++i) {
    if constexpr (sizeof(T) == 2) {
      out[i] += a * tensor::Bf16ToFloat(v[i]);
    } else {
      out[i] += a * v[i];
    }
  }
}

// One query row, one head: o = Σ softmax(q·k_j · scale) v_j over keys [lo, qi].
template <typename T>
void AttendOne(const float* q, const T* kc, const T* vc, const AttentionSequence& seq, int64_t qi,
               int64_t lo, int64_t block_size, int64_t row_stride, int64_t head_off, float scale,
               int64_t d, float* o) {
  std::fill(o, o + d, 0.0f);
  float m = -INFINITY, l = 0.0f;
  for (int64_t j = lo; j <= qi; ++j) {
    const int64_t block = seq.block_table[j / block_size];
    const int64_t off = (block * block_size + j % block_size) * row_stride + head_off;
    const float s = Dot(q, kc + off, d) * scale;
    if (s > m) {
      const float corr = std::exp(m - s);  // exp(-inf) = 0 on the first key
      for (int64_t i = 0; i < d; ++i) o[i] *= corr;
      l *= corr;
      m = s;
    }
    const float p = std::exp(s - m);
    l += p;
    Axpy(p, vc + off, o, d);
  }
  const float inv = 1.0f / l;
  for (int64_t i = 0; i < d; ++i) o[i] *= inv;
}

}  // namespace

void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache) {
  internal::CheckDType(k, tensor::DType::kF32, "KvCacheWrite k");
  internal::CheckDType(v, tensor::DType::kF32, "KvCacheWrite v");
  internal::CheckDType(slots, tensor::DType::kI64, "KvCacheWrite slots");
  CheckCache(k_cache, "KvCacheWrite k_cache");
  CheckCache(v_cache, "KvCacheWrite v_cache");
  GEMMAD_CHECK(k_cache.shape == v_cache.shape && k_cache.dtype == v_cache.dtype, "KvCacheWrite: K/V caches differ");
  const int64_t n = slots.NumElements();
  const int64_t row = k_cache.shape[2] * k_cache.shape[3];
  const int64_t num_slots = k_cache.shape[0] * k_cache.shape[1];
  GEMMAD_CHECK(k.NumElements() == n * row && v.NumElements() == n * row, "KvCacheWrite: k {} v {} for {} slots of {}",
               k.shape.ToString(), v.shape.ToString(), n, row);
  const int64_t* sl = slots.As<const int64_t>();
  const bool bf16 = k_cache.dtype == tensor::DType::kBF16;
  ParallelFor(ctx, n, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      if (sl[t] < 0) continue;
      GEMMAD_CHECK(sl[t] < num_slots, "KvCacheWrite: slot {} outside the cache ({} slots)", sl[t], num_slots);
      const float* ks = k.As<const float>() + t * row;
      const float* vs = v.As<const float>() + t * row;
      if (bf16) {
        uint16_t* kd = k_cache.As<uint16_t>() + sl[t] * row;
        uint16_t* vd = v_cache.As<uint16_t>() + sl[t] * row;
        for (int64_t i = 0; i < row; ++i) {
          kd[i] = tensor::FloatToBf16(ks[i]);
          vd[i] = tensor::FloatToBf16(vs[i]);
        }
      } else {
        std::copy(ks, ks + row, k_cache.As<float>() + sl[t] * row);
        std::copy(vs, vs + row, v_cache.As<float>() + sl[t] * row);
      }
    }
  });
}

void PagedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k_cache,
                    const TensorView& v_cache, std::span<const AttentionSequence> sequences, int64_t window,
                    float scale, const TensorView& out) {
  internal::CheckDType(q, tensor::DType::kF32, "PagedAttention q");
  internal::CheckDType(out, tensor::DType::kF32, "PagedAttention out");
  internal::CheckRank(q, 3, "PagedAttention q");
  CheckCache(k_cache, "PagedAttention k_cache");
  CheckCache(v_cache, "PagedAttention v_cache");
  GEMMAD_CHECK(k_cache.shape == v_cache.shape && k_cache.dtype == v_cache.dtype, "PagedAttention: K/V caches differ");
  const int64_t n = q.shape[0], heads = q.shape[1], d = q.shape[2];
  const int64_t num_blocks = k_cache.shape[0], block_size = k_cache.shape[1], kv_heads = k_cache.shape[2];
  GEMMAD_CHECK(k_cache.shape[3] == d && kv_heads > 0 && heads % kv_heads == 0 && out.shape == q.shape &&
                   q.data != out.data,
               "PagedAttention: q {} cache {} out {}", q.shape.ToString(), k_cache.shape.ToString(),
               out.shape.ToString());
  const int64_t group = heads / kv_heads;
  // Row -> sequence map, and a check that every block the rows will read is present.
  std::vector<int32_t> seq_of_row(static_cast<size_t>(n), -1);
  for (size_t s = 0; s < sequences.size(); ++s) {
    const auto& sq = sequences[s];
    GEMMAD_CHECK(sq.token_begin >= 0 && sq.token_begin + sq.num_tokens <= n, "PagedAttention: sequence {} rows", s);
    for (int64_t t = 0; t < sq.num_tokens; ++t) seq_of_row[sq.token_begin + t] = static_cast<int32_t>(s);
    if (sq.num_tokens == 0) continue;
    const int64_t last = sq.first_kv_index + sq.num_tokens - 1;
    const int64_t lo = window > 0 ? std::max<int64_t>(0, sq.first_kv_index - window + 1) : 0;
    GEMMAD_CHECK(last / block_size < sq.block_table_size, "PagedAttention: block table of sequence {} too short", s);
    for (int64_t b = lo / block_size; b <= last / block_size; ++b) {
      GEMMAD_CHECK(sq.block_table[b] >= 0 && sq.block_table[b] < num_blocks,
                   "PagedAttention: sequence {} logical block {} -> {} (cache has {})", s, b, sq.block_table[b],
                   num_blocks);
    }
  }
  const bool bf16 = k_cache.dtype == tensor::DType::kBF16;
  ParallelFor(ctx, n * heads, 1, [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      const int64_t t = task / heads, h = task % heads;
      float* o = out.As<float>() + task * d;
      if (seq_of_row[t] < 0) {
        std::fill(o, o + d, 0.0f);
        continue;
      }
      const auto& sq = sequences[seq_of_row[t]];
      const int64_t qi = sq.first_kv_index + (t - sq.token_begin);
      const int64_t lo = window > 0 ? std::max<int64_t>(0, qi - window + 1) : 0;
      const float* qv = q.As<const float>() + task * d;
      const int64_t head_off = (h / group) * d;
      if (bf16) {
        AttendOne(qv, k_cache.As<const uint16_t>(), v_cache.As<const uint16_t>(), sq, qi, lo, block_size,
                  kv_heads * d, head_off, scale, d, o);
      } else {
        AttendOne(qv, k_cache.As<const float>(), v_cache.As<const float>(), sq, qi, lo, block_size, kv_heads * d,
                  head_off, scale, d, o);
      }
    }
  });
}

}  // namespace gemmad::kernels
