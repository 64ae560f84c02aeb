// Portable row kernels of the bicubic antialiased resize and the run-time choice between them and
// the AVX2 ones (resize_rows_avx2.cc, built on x86-64 only).
#include "mm/resize_rows.h"

#include <algorithm>

namespace gemmad::mm::internal {
namespace {

inline uint8_t ClampToU8(int32_t v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

void HorizontalRowGeneric(const BicubicAaAxis& ax, const uint8_t* in, uint8_t* out) {
  const int32_t init = int32_t{1} << (ax.precision - 1);
  const int shift = ax.precision;
  for (int64_t x = 0; x < ax.out_len; ++x) {
    const int16_t* w = ax.weights.data() + x * ax.taps;
    const uint8_t* p = in + ax.first[x] * 3;
    const int64_t n = ax.count[x];
    int32_t r = init, g = init, b = init;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t wj = w[j];
      r += wj * p[3 * j];
      g += wj * p[3 * j + 1];
      b += wj * p[3 * j + 2];
    }
    out[3 * x] = ClampToU8(r >> shift);
    out[3 * x + 1] = ClampToU8(g >> shift);
    out[3 * x + 2] = ClampToU8(b >> shift);
  }
}

// Columns go in blocks with a local accumulator (fixed trip count, no aliasing: the compiler
// vectorises the inner loop).
void VerticalRowGeneric(const uint8_t* const* rows, const int16_t* w, int64_t n, int precision, int64_t len,
                        uint8_t* out) {
  const int32_t init = int32_t{1} << (precision - 1);
  constexpr int64_t kBlock = 64;
  for (int64_t k0 = 0; k0 < len; k0 += kBlock) {
    const int64_t m = std::min(kBlock, len - k0);
    int32_t acc[kBlock];
    for (int64_t k = 0; k < kBlock; ++k) acc[k] = init;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t wj = w[j];
      const uint8_t* row = rows[j] + k0;
      if (m == kBlock) {
        for (int64_t k = 0; k < kBlock; ++k) acc[k] += wj * row[k];
      } else {
        for (int64_t k = 0; k < m; ++k) acc[k] += wj * row[k];
      }
    }
    for (int64_t k = 0; k < m; ++k) out[k0 + k] = ClampToU8(acc[k] >> precision);
  }
}

}  // namespace

const ResizeRowKernels& GenericResizeRowKernels() {
  static const ResizeRowKernels kernels{"generic", &HorizontalRowGeneric, &VerticalRowGeneric};
  return kernels;
}

#if !(defined(__x86_64__) || defined(_M_X64))
const ResizeRowKernels* Avx2ResizeRowKernels() { return nullptr; }
#endif

const ResizeRowKernels& BestResizeRowKernels() {
  static const ResizeRowKernels* best = Avx2ResizeRowKernels();
  return best != nullptr ? *best : GenericResizeRowKernels();
}

}  // namespace gemmad::mm::internal
