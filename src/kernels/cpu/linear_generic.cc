// Portable linear kernels: four tokens share each weight row load, four partial sums per dot
// so the compiler can vectorise. The baseline every ISA table is compared with.
#include <cmath>
#include <cstdint>

#include "kernels/registry.h"
#include "tensor/half.h"

namespace gemmad::kernels {
namespace {

template <typename W>
inline float Widen(W w) {
  if constexpr (sizeof(W) == 2) {
    return tensor::Bf16ToFloat(w);
  } else {
    return w;
  }
}

template <typename W>
void LinearGeneric(const float* x, int64_t n, int64_t in, const W* w, int64_t o_begin, int64_t o_end,
                   float* y, int64_t ldy) {
  for (int64_t o = o_begin; o < o_end; ++o) {
    const W* wr = w + o * in;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const float* x0 = x + t * in;
      float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (int64_t i = 0; i < in; ++i) {
        float wv = Widen(wr[i]);
        a0 += x0[i] * wv;
        a1 += x0[in + i] * wv;
        a2 += x0[2 * in + i] * wv;
        a3 += x0[3 * in + i] * wv;
      }
      y[t * ldy + o] = a0;
      y[(t + 1) * ldy + o] = a1;
      y[(t + 2) * ldy + o] = a2;
      y[(t + 3) * ldy + o] = a3;
    }
    for (; t < n; ++t) {
      const float* xr = x + t * in;
      float p[4] = {0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 4 <= in; i += 4) {
        for (int k = 0; k < 4; ++k) p[k] += xr[i + k] * Widen(wr[i + k]);
      }
      for (; i < in; ++i) p[0] += xr[i] * Widen(wr[i]);
      y[t * ldy + o] = (p[0] + p[1]) + (p[2] + p[3]);
    }
  }
}

void LinearF32Generic(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin,
                      int64_t o_end, float* y, int64_t ldy) {
  LinearGeneric(x, n, in, w, o_begin, o_end, y, ldy);
}
void LinearBf16Generic(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                       int64_t o_end, float* y, int64_t ldy) {
  LinearGeneric(x, n, in, w, o_begin, o_end, y, ldy);
}
void SoftCapGeneric(float* x, int64_t n, float cap) {
  for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] / cap) * cap;
}
bool AlwaysSupported() { return true; }

}  // namespace

const CpuKernelTable& GenericCpuKernels() {
  static const CpuKernelTable table{"generic", &AlwaysSupported, &LinearF32Generic, &LinearBf16Generic,
                                     &SoftCapGeneric};
  return table;
}

}  // namespace gemmad::kernels
