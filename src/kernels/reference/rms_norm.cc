// Scalar RMSNorm, accumulating in double for a tight reference.
#include "kernels/reference/rms_norm.h"

#include <cmath>

namespace gemmad::kernels::reference {

void RmsNorm(const float* x, const float* weight, float* out, int64_t rows, int64_t n, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float* yr = out + r * n;
    double ss = 0.0;
    for (int64_t j = 0; j < n; ++j) ss += static_cast<double>(xr[j]) * xr[j];
    float ms = static_cast<float>(ss / static_cast<double>(n)) + eps;
    float inv = std::pow(ms, -0.5f);
    for (int64_t j = 0; j < n; ++j) {
      float v = xr[j] * inv;
      yr[j] = weight != nullptr ? v * weight[j] : v;
    }
  }
}

}  // namespace gemmad::kernels::reference
