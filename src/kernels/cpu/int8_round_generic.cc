// The static int8 activation rounding one element at a time (registry.h QuantizeInt8Fn /
// FakeQuantInt8Fn): the scalar formula every other table reproduces bit for bit.
#include <cstdint>

#include "kernels/registry.h"
#include "tensor/int8_round.h"

namespace gemmad::kernels {

int64_t QuantizeInt8Generic(const float* x, int64_t n, float s, int8_t* k) {
  int64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = tensor::RoundClampInt8(x[i] / s);
    k[i] = v == v ? static_cast<int8_t>(v) : int8_t{0};  // NaN: 0
    sum += k[i];
  }
  return sum;
}

void FakeQuantInt8Generic(const float* x, int64_t n, float s, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = tensor::RoundClampInt8(x[i] / s) * s;
}

}  // namespace gemmad::kernels
