// Portable GemmF32 (kernels/registry.h): C = A·B with B row-major [k, n], one C row at a time as
// a sum of scaled B rows (the inner loop runs along a contiguous B row and C row). The baseline
// every ISA table is compared with, and the NEON table's entry.
#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {

void GemmF32Generic(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                    int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    float* cr = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) cr[j] = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) {
      const float av = a[i * lda + kk];
      const float* br = b + kk * ldb;
      for (int64_t j = 0; j < n; ++j) cr[j] += av * br[j];
    }
  }
}

}  // namespace gemmad::kernels
