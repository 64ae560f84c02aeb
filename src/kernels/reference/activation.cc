// Scalar element-wise ops in double.
#include "kernels/reference/activation.h"

#include <algorithm>
#include <cmath>

namespace gemmad::kernels::reference {

float GeluTanh(float z) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  double x = z;
  return static_cast<float>(0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x))));
}

void GeluTanhMul(const float* gate, const float* up, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(static_cast<double>(GeluTanh(gate[i])) * up[i]);
  }
}

void SoftCap(float* x, int64_t n, float cap) {
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(cap * std::tanh(static_cast<double>(x[i]) / cap));
}

void Softmax(float* x, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    float* v = x + r * n;
    double m = -INFINITY;
    for (int64_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(v[i]));
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(v[i] - m);
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::exp(v[i] - m) / sum);
  }
}

}  // namespace gemmad::kernels::reference
