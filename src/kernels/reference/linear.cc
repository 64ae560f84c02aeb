// Scalar Linear in double precision.
#include "kernels/reference/linear.h"

#include "tensor/half.h"

namespace gemmad::kernels::reference {

void LinearF32(const float* x, int64_t n, int64_t in, const float* w, int64_t out, float* y) {
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t o = 0; o < out; ++o) {
      double acc = 0.0;
      for (int64_t i = 0; i < in; ++i) acc += static_cast<double>(x[t * in + i]) * w[o * in + i];
      y[t * out + o] = static_cast<float>(acc);
    }
  }
}

void LinearBf16(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t out, float* y) {
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t o = 0; o < out; ++o) {
      double acc = 0.0;
      for (int64_t i = 0; i < in; ++i) {
        acc += static_cast<double>(x[t * in + i]) * tensor::Bf16ToFloat(w[o * in + i]);
      }
      y[t * out + o] = static_cast<float>(acc);
    }
  }
}

}  // namespace gemmad::kernels::reference
