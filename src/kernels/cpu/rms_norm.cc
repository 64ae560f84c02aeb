// RMSNorm and RoPE ops (row-parallel). The mean square accumulates in double (four interleaved
// sums); the scale is pow(ms, -0.5) in fp32 as the reference model computes it.
#include <cmath>

#include "kernels/view_checks.h"
#include "kernels/cpu/cpu_ops.h"

namespace gemmad::kernels::cpu {

void RmsNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight,
             const TensorView& out, float eps) {
  internal::CheckDType(x, tensor::DType::kF32, "RmsNorm x");
  internal::CheckDType(out, tensor::DType::kF32, "RmsNorm out");
  internal::CheckRank(x, 2, "RmsNorm x");
  GEMMAD_CHECK(out.shape == x.shape, "RmsNorm: x {} out {}", x.shape.ToString(), out.shape.ToString());
  const int64_t rows = x.shape[0], n = x.shape[1];
  const bool has_weight = weight.data != nullptr;
  if (has_weight) {
    internal::CheckWeightDType(weight, "RmsNorm weight");
    GEMMAD_CHECK(weight.NumElements() == n, "RmsNorm: weight {} for rows of {}", weight.shape.ToString(), n);
  }
  const float* xp = x.As<const float>();
  float* op = out.As<float>();
  const bool bf16_weight = has_weight && weight.dtype == tensor::DType::kBF16;
  ParallelFor(ctx, rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float* xr = xp + r * n;
      float* yr = op + r * n;
      // Four interleaved double sums (the squares are exact in double), so the adds do not wait
      // on each other; combined in a fixed order, so a row's result never depends on its neighbours.
      double s4[4] = {0.0, 0.0, 0.0, 0.0};
      int64_t j = 0;
      for (; j + 4 <= n; j += 4) {
        for (int k = 0; k < 4; ++k) s4[k] += static_cast<double>(xr[j + k]) * xr[j + k];
      }
      for (; j < n; ++j) s4[0] += static_cast<double>(xr[j]) * xr[j];
      const double ss = (s4[0] + s4[1]) + (s4[2] + s4[3]);
      const float ms = static_cast<float>(ss / static_cast<double>(n)) + eps;
      const float inv = std::pow(ms, -0.5f);
      if (bf16_weight) {
        const uint16_t* wp = weight.As<const uint16_t>();
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] * inv) * tensor::Bf16ToFloat(wp[i]);
      } else if (has_weight) {
        const float* wp = weight.As<const float>();
        for (int64_t i = 0; i < n; ++i) yr[i] = (xr[i] * inv) * wp[i];
      } else {
        for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] * inv;
      }
    }
  });
}

void RopeNeox(const ExecContext& ctx, const TensorView& x, const TensorView& positions,
              const TensorView& inv_freq) {
  internal::CheckDType(x, tensor::DType::kF32, "RopeNeox x");
  internal::CheckDType(positions, tensor::DType::kI32, "RopeNeox positions");
  internal::CheckDType(inv_freq, tensor::DType::kF32, "RopeNeox inv_freq");
  internal::CheckRank(x, 3, "RopeNeox x");
  const int64_t n = x.shape[0], heads = x.shape[1], d = x.shape[2], half = d / 2;
  GEMMAD_CHECK(d % 2 == 0 && inv_freq.NumElements() == half && positions.NumElements() == n,
               "RopeNeox: x {} positions {} inv_freq {}", x.shape.ToString(), positions.shape.ToString(),
               inv_freq.shape.ToString());
  const int32_t* pos = positions.As<const int32_t>();
  const float* f = inv_freq.As<const float>();
  float* xp = x.As<float>();
  ParallelFor(ctx, n, 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      for (int64_t i = 0; i < half; ++i) {
        if (f[i] == 0.0f) continue;  // angle 0: cos 1, sin 0
        const float angle = static_cast<float>(pos[t]) * f[i];
        const float c = std::cos(angle), s = std::sin(angle);
        for (int64_t h = 0; h < heads; ++h) {
          float* v = xp + (t * heads + h) * d;
          const float a = v[i], bb = v[i + half];
          v[i] = a * c - bb * s;
          v[i + half] = bb * c + a * s;
        }
      }
    }
  });
}

}  // namespace gemmad::kernels::cpu
