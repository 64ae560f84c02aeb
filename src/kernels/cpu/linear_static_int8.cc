// LinearStaticInt8 (kernels/ops.h): a Linear whose input is fake-quantized to int8 with a static
// scale. Table rows (kLut4R / kLut2R) go to the table's integer-activation kernel where it has one
// (kernels/registry.h LinearLutIntFn: the integers k as int16 words in its lane order, prepared once
// per call); anything else runs Linear on the fake-quantized input k · s.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"
#include "kernels/view_checks.h"
#include "tensor/int8_round.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels::cpu {
namespace {

// k = clamp(round-half-even(x / s), -128, 127) for each of x[0..n) (a loop the compiler vectorizes).
void QuantizeInt8(const float* x, int64_t n, float s, int16_t* k) {
  for (int64_t i = 0; i < n; ++i) k[i] = static_cast<int16_t>(tensor::RoundClampInt8(x[i] / s));
}

// kb [n, LutIntWords(in, bits)] in the kernels' lane order (registry.h LinearLutIntFn): runs of 16
// consecutive elements, so each token is quantized in place order and then copied run by run.
void PrepareLanes(const float* x, int64_t n, int64_t in, float s, int bits, int16_t* kb) {
  const int64_t group = tensor::LutGroupElements(bits), words = LutIntWords(in, bits), codes = 8 / bits;
  thread_local std::vector<int16_t> q;
  q.assign(static_cast<size_t>(words), 0);  // zeros past in: the missing second group of a last pair
  for (int64_t t = 0; t < n; ++t) {
    QuantizeInt8(x + t * in, in, s, q.data());
    int16_t* out = kb + t * words;
    for (int64_t p = 0; p < words / (2 * group); ++p) {
      for (int64_t h = 0; h < codes; ++h) {
        for (int64_t half = 0; half < 2; ++half) {
          std::memcpy(out + (p * codes + h) * 32 + 16 * half, q.data() + (2 * p + half) * group + 16 * h,
                      16 * sizeof(int16_t));
        }
      }
    }
  }
}

}  // namespace

void LinearStaticInt8(const ExecContext& ctx, const TensorView& x, float s, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, tensor::DType::kF32, "LinearStaticInt8 x");
  internal::CheckRank(x, 2, "LinearStaticInt8 x");
  GEMMAD_CHECK(s > 0.0f && std::isfinite(s), "LinearStaticInt8: scale {}", s);
  const CpuKernelTable& k = CpuKernels();
  const LinearLutIntFn f = w.dtype == tensor::DType::kLut4R   ? k.linear_lut4r_int
                           : w.dtype == tensor::DType::kLut2R ? k.linear_lut2r_int
                                                              : nullptr;
  const int64_t n = x.shape[0], in = x.shape[1];
  if (f == nullptr) {
    thread_local std::vector<float> q;
    if (q.size() < static_cast<size_t>(n * in)) q.resize(static_cast<size_t>(n * in));
    const float* xp = x.As<const float>();
    for (int64_t i = 0; i < n * in; ++i) q[static_cast<size_t>(i)] = tensor::RoundClampInt8(xp[i] / s) * s;
    TensorView xq = x;
    xq.data = q.data();
    cpu::Linear(ctx, xq, w, y);
    return;
  }
  internal::CheckMatrixDType(w, "LinearStaticInt8 w");
  internal::CheckDType(y, tensor::DType::kF32, "LinearStaticInt8 y");
  internal::CheckRank(w, 2, "LinearStaticInt8 w");
  internal::CheckRank(y, 2, "LinearStaticInt8 y");
  GEMMAD_CHECK(w.shape[1] == in && y.shape[0] == n && y.shape[1] == w.shape[0], "LinearStaticInt8: x {} w {} y {}",
               x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  GEMMAD_CHECK(x.data != y.data, "LinearStaticInt8: y aliases x");
  const int bits = tensor::LutBits(w.dtype);
  thread_local std::vector<int16_t> kb;
  const auto words = static_cast<size_t>(n * LutIntWords(in, bits));
  if (kb.size() < words) kb.resize(words);
  PrepareLanes(x.As<const float>(), n, in, s, bits, kb.data());
  const int16_t* kbp = kb.data();  // this thread's scratch (the lambda runs on others too)
  const int64_t out = w.shape[0];
  // Chunks of at least ~64K multiply-adds, even row counts (as Linear's).
  const int64_t min_rows = std::max<int64_t>(2, 65536 / std::max<int64_t>(1, in * n) + 1) & ~int64_t{1};
  ParallelFor(ctx, (out + 1) / 2, min_rows / 2, [&](int64_t ub, int64_t ue) {
    f(kbp, n, in, s, w.As<const uint8_t>(), 2 * ub, std::min(out, 2 * ue), y.As<float>(), out);
  });
}

}  // namespace gemmad::kernels::cpu
