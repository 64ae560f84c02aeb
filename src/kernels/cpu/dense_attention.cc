// Dense (non-causal, unmasked) attention, one KV head at a time: its keys are packed as [m, d] and
// its values transposed to [d + 1, m] once (the extra row all ones), then tasks of up to kRows
// query rows of one query head run S = Q·Kᵀ ([rows, m], the registry's f32 Linear), an exact row
// softmax numerator (the row maximum first, then the table's shifted exp) and O = P·[V | 1] (the
// f32 Linear again: its last column is each row's sum of weights, accumulated in fp32 as the
// reference model's softmax does), scaling each row by 1 / sum at the end. Scratch: the packed
// head ((2d + 1)·m floats, on the calling thread) and per task rows·m scores — never a head's
// [n, m] matrix.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/op_contracts.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kRows = 32;  // query rows per task: a task's scores are kRows·m floats

// Grow-only per-thread buffers.
void Grow(std::vector<float>& v, int64_t n) {
  if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
}

// The largest element of x[0, n): sixteen independent running maxima (the compiler packs them
// into vector max instructions), so the pass is not one long dependency chain.
float RowMax(const float* x, int64_t n) {
  constexpr int kLanes = 16;
  float m[kLanes];
  for (int k = 0; k < kLanes; ++k) m[k] = x[0];
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) m[k] = m[k] < x[j + k] ? x[j + k] : m[k];
  }
  for (; j < n; ++j) m[0] = m[0] < x[j] ? x[j] : m[0];
  float r = m[0];
  for (int k = 1; k < kLanes; ++k) r = r < m[k] ? m[k] : r;
  return r;
}

struct HeadTask {
  const float* q;   // [n, H, d]
  const float* kp;  // [m, d] packed keys of the KV head
  const float* vt;  // [d + 1, m] transposed values of the KV head, then a row of ones
  float* out;       // [n, H, d]
  int64_t heads, d, m;
  float scale;
};

// Rows [r0, r1) of query head h.
void AttendRows(const CpuKernelTable& kt, const HeadTask& t, int64_t h, int64_t r0, int64_t r1) {
  thread_local std::vector<float> qb, s, ob;
  const int64_t rows = r1 - r0, d = t.d, m = t.m;
  Grow(qb, rows * d);
  Grow(s, rows * m);
  Grow(ob, rows * (d + 1));
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = t.q + ((r0 + r) * t.heads + h) * d;
    std::copy(src, src + d, qb.data() + r * d);
  }
  kt.linear_f32(qb.data(), rows, d, t.kp, 0, m, s.data(), m);  // S = Q·Kᵀ, [rows, m]
  for (int64_t r = 0; r < rows; ++r) {
    float* sr = s.data() + r * m;
    kt.exp_shifted(sr, m, RowMax(sr, m), t.scale, sr);  // exp(scale · (s - max)): the row's largest is 1
  }
  kt.linear_f32(s.data(), rows, m, t.vt, 0, d + 1, ob.data(), d + 1);  // [P·V | Σ P], [rows, d + 1]
  for (int64_t r = 0; r < rows; ++r) {
    const float* o = ob.data() + r * (d + 1);
    const float inv = 1.0f / o[d];  // >= 1: the row's maximum contributes exp(0)
    float* dst = t.out + ((r0 + r) * t.heads + h) * d;
    for (int64_t i = 0; i < d; ++i) dst[i] = o[i] * inv;
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
  Grow(vt, (d + 1) * m);
  std::fill(vt.begin() + d * m, vt.begin() + (d + 1) * m, 1.0f);  // the sums' row
  const float* kd = k.As<const float>();
  const float* vd = v.As<const float>();
  const int64_t blocks = (n + kRows - 1) / kRows;
  const HeadTask task{q.As<const float>(), kp.data(), vt.data(), out.As<float>(), sh.heads, d, m, scale};
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
    ParallelFor(ctx, group * blocks, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        const int64_t h = g * group + t / blocks, r0 = t % blocks * kRows;
        AttendRows(kt, task, h, r0, std::min(n, r0 + kRows));
      }
    });
  }
}

}  // namespace gemmad::kernels::cpu
