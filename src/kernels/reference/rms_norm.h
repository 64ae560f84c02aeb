// Scalar reference RMSNorm (text-model.md §4.1): out = x * pow(mean(x^2) + eps, -0.5) * w.
// Every optimised backend is parity-tested against this function.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// x, out: [rows, n] fp32 (may alias). weight: [n] fp32, or nullptr for the weightless norm.
void RmsNorm(const float* x, const float* weight, float* out, int64_t rows, int64_t n, float eps);

}  // namespace gemmad::kernels::reference
