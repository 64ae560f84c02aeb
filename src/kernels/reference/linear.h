// Scalar reference Linear: y[n, out] = x[n, in] · W[out, in]ᵀ, accumulated in double.
// Every optimised linear kernel is parity-tested against these.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

void LinearF32(const float* x, int64_t n, int64_t in, const float* w, int64_t out, float* y);
// w holds bf16 bit patterns.
void LinearBf16(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t out, float* y);

}  // namespace gemmad::kernels::reference
