// GPU parity test: CUDA RMSNorm vs the scalar reference over odd sizes. Skips without a device.
#include "kernels/cuda/rms_norm.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/rng.h"
#include "kernels/cuda/device.h"
#include "kernels/reference/rms_norm.h"

namespace gemmad::kernels::cuda {
namespace {

TEST(CudaRmsNormTest, MatchesReference) {
  if (DeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  Rng rng(1);
  for (int64_t n : {1, 7, 64, 255, 256, 1536, 5376}) {
    for (bool with_weight : {true, false}) {
      const int64_t rows = 5;
      std::vector<float> x(rows * n), w(n), ref(rows * n), got(rows * n);
      for (auto& v : x) v = static_cast<float>(rng.Normal() * 3);
      for (auto& v : w) v = static_cast<float>(rng.Uniform(0.5, 1.5));
      reference::RmsNorm(x.data(), with_weight ? w.data() : nullptr, ref.data(), rows, n, 1e-6f);
      float *dx, *dw, *dy;
      ASSERT_EQ(cudaMalloc(&dx, x.size() * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dw, w.size() * 4), cudaSuccess);
      ASSERT_EQ(cudaMalloc(&dy, x.size() * 4), cudaSuccess);
      cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice);
      cudaMemcpy(dw, w.data(), w.size() * 4, cudaMemcpyHostToDevice);
      ASSERT_TRUE(RmsNorm(dx, with_weight ? dw : nullptr, dy, rows, n, 1e-6f, nullptr).ok());
      cudaMemcpy(got.data(), dy, got.size() * 4, cudaMemcpyDeviceToHost);
      cudaFree(dx);
      cudaFree(dw);
      cudaFree(dy);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], ref[i], 1e-5f * (1 + std::fabs(ref[i]))) << "n=" << n << " i=" << i;
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels::cuda
