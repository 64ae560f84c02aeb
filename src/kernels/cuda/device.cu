// CUDA device queries.
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/device.h"

namespace gemmad::kernels::cuda {

int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

Status LastError(const char* what) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return OkStatus();
  return InternalError(std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace gemmad::kernels::cuda
