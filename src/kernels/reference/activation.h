// Scalar reference element-wise ops: gelu (tanh approximation), GeGLU, soft-cap, softmax.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// 0.5·z·(1 + tanh(sqrt(2/π)·(z + 0.044715·z³))), in double.
float GeluTanh(float z);
// out[i] = GeluTanh(gate[i]) · up[i] for i in [0, n).
void GeluTanhMul(const float* gate, const float* up, float* out, int64_t n);
// x[i] = cap · tanh(x[i] / cap), in place.
void SoftCap(float* x, int64_t n, float cap);
// Row-wise softmax of x: [rows, n], in place.
void Softmax(float* x, int64_t rows, int64_t n);

}  // namespace gemmad::kernels::reference
