// CUDA RMSNorm over rows (fp32 activations, optional fp32 weight). Parity: kernels/reference/rms_norm.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace gemmad::kernels::cuda {

// All pointers are device pointers. x, out: [rows, n]; weight: [n] or nullptr. `stream` is a
// cudaStream_t passed as void* to keep CUDA types out of this header.
Status RmsNorm(const float* x, const float* weight, float* out, int64_t rows, int64_t n, float eps,
               void* stream);

}  // namespace gemmad::kernels::cuda
