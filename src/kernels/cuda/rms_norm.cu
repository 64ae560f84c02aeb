// CUDA RMSNorm: one block per row, a block-wide reduction of sum(x^2) in fp32, then scale.
#include <cuda_runtime.h>

#include "kernels/cuda/device.h"
#include "kernels/cuda/rms_norm.h"

namespace gemmad::kernels::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void RmsNormKernel(const float* __restrict__ x, const float* __restrict__ weight,
                              float* __restrict__ out, int64_t n, float eps) {
  const float* xr = x + blockIdx.x * n;
  float* yr = out + blockIdx.x * n;
  float ss = 0.f;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) ss += xr[j] * xr[j];
  for (int offset = 16; offset > 0; offset >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, offset);
  __shared__ float warp_sums[kThreads / 32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = ss;
  __syncthreads();
  if (warp == 0) {
    ss = lane < kThreads / 32 ? warp_sums[lane] : 0.f;
    for (int offset = 16; offset > 0; offset >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, offset);
    if (lane == 0) warp_sums[0] = ss;
  }
  __syncthreads();
  float inv = powf(warp_sums[0] / static_cast<float>(n) + eps, -0.5f);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    float v = xr[j] * inv;
    yr[j] = weight != nullptr ? v * weight[j] : v;
  }
}

}  // namespace

Status RmsNorm(const float* x, const float* weight, float* out, int64_t rows, int64_t n, float eps,
               void* stream) {
  if (rows <= 0 || n <= 0) return InvalidArgumentError("RmsNorm: empty input");
  if (rows > 0x7FFFFFFF) return InvalidArgumentError("RmsNorm: too many rows");
  RmsNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      x, weight, out, n, eps);
  return LastError("RmsNorm launch");
}

}  // namespace gemmad::kernels::cuda
