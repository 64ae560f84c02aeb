// LinearStaticInt8 (kernels/ops.h): a Linear whose input is fake-quantized to int8 with a static
// scale. Table rows (kLut4R / kLut2R) go to the table's integer-activation kernel where it has one
// (kernels/registry.h LinearLutIntFn: the integers k in its lane orders, prepared once per call);
// anything else runs Linear on the fake-quantized input k · s.
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

// The activations in both of the kernels' lane orders (registry.h LutIntActs): words [n, LutIntWords],
// bytes [n, LutIntBytes] and sums [n]; each token is quantized in place order and then copied run by
// run (runs of 16 consecutive elements).
void PrepareLanes(const float* x, int64_t n, int64_t in, float s, int bits, int16_t* kb, int8_t* bytes,
                  int32_t* sums) {
  const int64_t group = tensor::LutGroupElements(bits), words = LutIntWords(in, bits), codes = 8 / bits;
  const int64_t nbytes = LutIntBytes(in, bits);
  thread_local std::vector<int16_t> q;
  q.assign(static_cast<size_t>(std::max(words, nbytes)), 0);  // zeros past in
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
    int8_t* ob = bytes + t * nbytes;
    int32_t sum = 0;
    for (int64_t c = 0; c < nbytes / (4 * group); ++c) {
      for (int64_t h = 0; h < codes; ++h) {
        for (int64_t g = 0; g < 4; ++g) {
          for (int64_t j = 0; j < 16; ++j) {
            const int16_t k = q[static_cast<size_t>(4 * group * c + group * g + 16 * h + j)];
            ob[(codes * c + h) * 64 + 16 * g + j] = static_cast<int8_t>(k);
            sum += k;
          }
        }
      }
    }
    sums[t] = sum;
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
  thread_local std::vector<int8_t> kbytes;
  thread_local std::vector<int32_t> ksums;
  const auto words = static_cast<size_t>(n * LutIntWords(in, bits));
  const auto nbytes = static_cast<size_t>(n * LutIntBytes(in, bits));
  if (kb.size() < words) kb.resize(words);
  if (kbytes.size() < nbytes) kbytes.resize(nbytes);
  if (ksums.size() < static_cast<size_t>(n)) ksums.resize(static_cast<size_t>(n));
  PrepareLanes(x.As<const float>(), n, in, s, bits, kb.data(), kbytes.data(), ksums.data());
  const LutIntActs acts{kb.data(), kbytes.data(), ksums.data()};  // this thread's scratch (others read it)
  const int64_t out = w.shape[0];
  // Chunks of at least ~64K multiply-adds, even row counts (as Linear's).
  const int64_t min_rows = std::max<int64_t>(2, 65536 / std::max<int64_t>(1, in * n) + 1) & ~int64_t{1};
  ParallelFor(ctx, (out + 1) / 2, min_rows / 2, [&](int64_t ub, int64_t ue) {
    f(acts, n, in, s, w.As<const uint8_t>(), 2 * ub, std::min(out, 2 * ue), y.As<float>(), out);
  });
}

}  // namespace gemmad::kernels::cpu
