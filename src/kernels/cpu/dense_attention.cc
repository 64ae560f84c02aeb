// Dense (non-causal, unmasked) attention, one KV head at a time, in transposed form so every
// operand of the two products is contiguous: the head's keys are packed once as K [m, d] and its
// values transposed to Vᵀ [d, m]; a task of up to kRows query rows of one query head packs Qᵀ
// [d, rows], runs Sᵀ = K·Qᵀ ([m, rows]), an exact softmax numerator per query column (its maximum
// first, subtracted, then the table's exp over the whole block), the column sums in fp32, and
// Oᵀ = Vᵀ·Sᵀ ([d, rows]), written to `out` scaled by 1 / sum. Both products are the table's
// outer-product GemmF32 with the small operand (Qᵀ, a block of Sᵀ) as the L1-resident right-hand
// side. Scratch: K and Vᵀ of one head (2·d·m floats, on the calling thread) and per task
// m·rows scores — never a head's [n, m] matrix.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/op_contracts.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kRows = 32;  // query rows per task: the width of Sᵀ

// Grow-only per-thread buffers.
void Grow(std::vector<float>& v, int64_t n) {
  if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
}

struct HeadTask {
  const float* q;   // [n, H, d]
  const float* k;   // [m, d] packed keys of the KV head
  const float* vt;  // [d, m] transposed values of the KV head
  float* out;       // [n, H, d]
  int64_t heads, d, m;
  float scale;
};

// Column-wise passes over Sᵀ [m, kRows] (row stride kRows; columns [0, rows) in use): fixed-width
// inner loops the compiler turns into vector instructions.
void ColumnMax(const float* s, int64_t m, float* mx) {
  for (int64_t c = 0; c < kRows; ++c) mx[c] = s[c];
  for (int64_t j = 1; j < m; ++j) {
    const float* row = s + j * kRows;
    for (int64_t c = 0; c < kRows; ++c) mx[c] = mx[c] < row[c] ? row[c] : mx[c];
  }
}
void SubtractColumns(float* s, int64_t m, const float* mx) {
  for (int64_t j = 0; j < m; ++j) {
    float* row = s + j * kRows;
    for (int64_t c = 0; c < kRows; ++c) row[c] -= mx[c];
  }
}
void ColumnSum(const float* s, int64_t m, float* sum) {
  for (int64_t c = 0; c < kRows; ++c) sum[c] = 0.0f;
  for (int64_t j = 0; j < m; ++j) {
    const float* row = s + j * kRows;
    for (int64_t c = 0; c < kRows; ++c) sum[c] += row[c];
  }
}

// Rows [r0, r1) of query head h.
void AttendRows(const CpuKernelTable& kt, const HeadTask& t, int64_t h, int64_t r0, int64_t r1) {
  thread_local std::vector<float> qt, st, ot;
  const int64_t rows = r1 - r0, d = t.d, m = t.m;
  Grow(qt, d * kRows);
  Grow(st, m * kRows);
  Grow(ot, d * kRows);
  std::fill(qt.begin(), qt.begin() + d * kRows, 0.0f);  // unused columns stay 0 (finite scores)
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = t.q + ((r0 + r) * t.heads + h) * d;
    for (int64_t i = 0; i < d; ++i) qt[static_cast<size_t>(i * kRows + r)] = src[i];
  }
  kt.gemm_f32(t.k, d, qt.data(), kRows, st.data(), kRows, m, kRows, d);  // Sᵀ = K·Qᵀ, [m, kRows]
  float mx[kRows], sum[kRows];
  ColumnMax(st.data(), m, mx);
  SubtractColumns(st.data(), m, mx);
  kt.exp_shifted(st.data(), m * kRows, 0.0f, t.scale, st.data());  // exp(scale · (s − max)): each max is 1
  ColumnSum(st.data(), m, sum);
  kt.gemm_f32(t.vt, m, st.data(), kRows, ot.data(), kRows, d, kRows, m);  // Oᵀ = Vᵀ·Sᵀ, [d, kRows]
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = 1.0f / sum[r];  // >= 1: the column's maximum contributes exp(0)
    float* dst = t.out + ((r0 + r) * t.heads + h) * d;
    for (int64_t i = 0; i < d; ++i) dst[i] = ot[static_cast<size_t>(i * kRows + r)] * inv;
  }
}

}  // namespace

void DenseAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k, const TensorView& v, float scale,
                    const TensorView& out) {
  const internal::DenseAttentionShape sh = internal::CheckDenseAttention(q, k, v, scale, out);
  const int64_t n = sh.n, d = sh.d, m = sh.m, nkv = sh.kv_heads, group = sh.heads / nkv;
  if (n == 0) return;
  const CpuKernelTable& kt = CpuKernels();
  thread_local std::vector<float> kp, vt;  // the calling thread's; the pool's threads only read them
  Grow(kp, m * d);
  Grow(vt, d * m);
  const float* kd = k.As<const float>();
  const float* vd = v.As<const float>();
  const int64_t blocks = (n + kRows - 1) / kRows;
  for (int64_t g = 0; g < nkv; ++g) {
    float* kpd = kp.data();
    float* vtd = vt.data();
    ParallelFor(ctx, m, 256, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const float* kr = kd + (j * nkv + g) * d;
        const float* vr = vd + (j * nkv + g) * d;
        std::copy(kr, kr + d, kpd + j * d);
        for (int64_t i = 0; i < d; ++i) vtd[i * m + j] = vr[i];
      }
    });
    const HeadTask task{q.As<const float>(), kpd, vtd, out.As<float>(), sh.heads, d, m, scale};
    ParallelFor(ctx, group * blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t h = g * group + t / blocks, r0 = t % blocks * kRows;
        AttendRows(kt, task, h, r0, std::min(n, r0 + kRows));
      }
    });
  }
}

}  // namespace gemmad::kernels::cpu
