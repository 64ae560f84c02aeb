// Scalar RoPE: the angle is formed in fp32 (as the reference model does), cos/sin in double.
#include "kernels/reference/rope.h"

#include <cmath>

namespace gemmad::kernels::reference {

void RopeNeox(float* x, int64_t num_tokens, int64_t num_heads, int64_t head_dim,
              const int32_t* positions, const float* inv_freq) {
  const int64_t half = head_dim / 2;
  for (int64_t t = 0; t < num_tokens; ++t) {
    for (int64_t h = 0; h < num_heads; ++h) {
      float* v = x + (t * num_heads + h) * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        float angle = static_cast<float>(positions[t]) * inv_freq[i];
        double c = std::cos(static_cast<double>(angle));
        double s = std::sin(static_cast<double>(angle));
        double a = v[i];
        double b = v[i + half];
        v[i] = static_cast<float>(a * c - b * s);
        v[i + half] = static_cast<float>(b * c + a * s);
      }
    }
  }
}

}  // namespace gemmad::kernels::reference
