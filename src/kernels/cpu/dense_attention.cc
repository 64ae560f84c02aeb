// Dense (non-causal, unmasked) attention, one KV head at a time: its keys are packed as [m, d] and
// its values transposed to [d, m] once, then tasks of up to kRows query rows of one query head
// run S = Q·Kᵀ ([rows, m], the registry's f32 Linear), an exact row softmax (the row maximum
// first, then the table's shifted exp; the sum in double) and O = P·V (the f32 Linear again over
// the transposed values), scaling each row by 1 / sum at the end. Scratch: the packed head
// (2·m·d floats, on the calling thread) and per task rows·m scores — never a head's [n, m] matrix.
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

struct HeadTask {
  const float* q;   // [n, H, d]
  const float* kp;  // [m, d] packed keys of the KV head
  const float* vt;  // [d, m] transposed values of the KV head
  float* out;       // [n, H, d]
  int64_t heads, d, m;
  float scale;
};

// Rows [r0, r1) of query head h.
void AttendRows(const CpuKernelTable& kt, const HeadTask& t, int64_t h, int64_t r0, int64_t r1) {
  thread_local std::vector<float> qb, s, ob;
  thread_local std::vector<double> sums;
  const int64_t rows = r1 - r0, d = t.d, m = t.m;
  Grow(qb, rows * d);
  Grow(s, rows * m);
  Grow(ob, rows * d);
  if (sums.size() < static_cast<size_t>(rows)) sums.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = t.q + ((r0 + r) * t.heads + h) * d;
    std::copy(src, src + d, qb.data() + r * d);
  }
  kt.linear_f32(qb.data(), rows, d, t.kp, 0, m, s.data(), m);  // S = Q·Kᵀ, [rows, m]
  for (int64_t r = 0; r < rows; ++r) {
    float* sr = s.data() + r * m;
    const float mx = *std::max_element(sr, sr + m);
    kt.exp_shifted(sr, m, mx, t.scale, sr);  // exp(scale · (s - max)), the row's largest is 1
    double sum = 0.0;
    for (int64_t j = 0; j < m; ++j) sum += sr[j];
    sums[static_cast<size_t>(r)] = sum;
  }
  kt.linear_f32(s.data(), rows, m, t.vt, 0, d, ob.data(), d);  // O = P·V, [rows, d]
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = static_cast<float>(1.0 / sums[static_cast<size_t>(r)]);
    float* dst = t.out + ((r0 + r) * t.heads + h) * d;
    for (int64_t i = 0; i < d; ++i) dst[i] = ob[static_cast<size_t>(r * d + i)] * inv;
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
