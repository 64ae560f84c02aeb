// Linear op: validates the views and splits the output rows over the pool; the per-ISA micro
// kernels come from the registry.
#include "kernels/ops.h"
#include "kernels/cpu/view_checks.h"
#include "kernels/registry.h"

namespace gemmad::kernels {

void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, tensor::DType::kF32, "Linear x");
  internal::CheckDType(y, tensor::DType::kF32, "Linear y");
  internal::CheckWeightDType(w, "Linear w");
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
  if (w.dtype == tensor::DType::kBF16) {
    const auto* wp = w.As<const uint16_t>();
    ParallelFor(ctx, out, min_rows, [&](int64_t b, int64_t e) { k.linear_bf16(xp, n, in, wp, b, e, yp, out); });
  } else {
    const auto* wp = w.As<const float>();
    ParallelFor(ctx, out, min_rows, [&](int64_t b, int64_t e) { k.linear_f32(xp, n, in, wp, b, e, yp, out); });
  }
}

}  // namespace gemmad::kernels
