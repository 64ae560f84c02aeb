// Linear op: validates the views and splits the output rows over the pool; the per-ISA micro
// kernels come from the registry. Quantized weights first quantize the activations once per
// call (into per-thread scratch that only grows, so steady-state steps do not allocate).
#include <vector>

#include "kernels/ops.h"
#include "kernels/cpu/view_checks.h"
#include "kernels/registry.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels {
namespace {

void LinearQuantized(const ExecContext& ctx, const CpuKernelTable& k, const float* x, int64_t n, int64_t in,
                     const TensorView& w, float* y, int64_t out) {
  thread_local std::vector<int8_t> q;
  thread_local std::vector<float> d;
  const auto nq = static_cast<size_t>(n * in), nd = static_cast<size_t>(n * (in / tensor::kQuantBlock));
  if (q.size() < nq) q.resize(nq);
  if (d.size() < nd) d.resize(nd);
  k.quantize_acts(x, n, in, q.data(), d.data());
  const LinearQuantFn fn = w.dtype == tensor::DType::kQ8R ? k.linear_q8r : k.linear_q4_0;
  const auto* wp = w.As<const uint8_t>();
  const int8_t* qp = q.data();
  const float* dp = d.data();
  const int64_t min_rows = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, in * n));
  // Whole row pairs per chunk (kQ4_0 stores rows in pairs; kernels handle any range, but a split
  // pair would be computed twice).
  const int64_t pairs = (out + 1) / 2;
  ParallelFor(ctx, pairs, std::max<int64_t>(1, min_rows / 2), [&](int64_t b, int64_t e) {
    fn(qp, dp, n, in, wp, out, 2 * b, std::min(out, 2 * e), y, out);
  });
}

}  // namespace

void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, tensor::DType::kF32, "Linear x");
  internal::CheckDType(y, tensor::DType::kF32, "Linear y");
  internal::CheckMatrixDType(w, "Linear w");
  internal::CheckRank(x, 2, "Linear x");
  internal::CheckRank(w, 2, "Linear w");
  internal::CheckRank(y, 2, "Linear y");
  const int64_t n = x.shape[0], in = x.shape[1], out = w.shape[0];
  GEMMAD_CHECK(w.shape[1] == in && y.shape[0] == n && y.shape[1] == out, "Linear: x {} w {} y {}",
               x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  GEMMAD_CHECK(x.data != y.data, "Linear: y aliases x");
  const CpuKernelTable& k = CpuKernels();
  const float* xp = x.As<const float>();
  float* yp = y.As<float>();
  // Aim for chunks of at least ~64K multiply-adds so small projections stay on one thread.
  const int64_t min_rows = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, in * n));
  if (tensor::IsBlockQuantized(w.dtype)) {
    LinearQuantized(ctx, k, xp, n, in, w, yp, out);
  } else if (w.dtype == tensor::DType::kBF16) {
    const auto* wp = w.As<const uint16_t>();
    ParallelFor(ctx, out, min_rows, [&](int64_t b, int64_t e) { k.linear_bf16(xp, n, in, wp, b, e, yp, out); });
  } else {
    const auto* wp = w.As<const float>();
    ParallelFor(ctx, out, min_rows, [&](int64_t b, int64_t e) { k.linear_f32(xp, n, in, wp, b, e, yp, out); });
  }
}

}  // namespace gemmad::kernels
