// AVX2+FMA GemmF32 (kernels/registry.h; this file is compiled with -mavx2 -mfma): C = A·B with B
// row-major [k, n], as outer products — a 6-row × 16-column tile keeps 12 accumulators in
// registers; every step of k loads two vectors of one B row and broadcasts one A element per row.
// k runs in blocks of kKc (the B panel stays in L1); C is accumulated across blocks. Column tails
// are masked loads/stores (no element outside [0, n) is touched).
// Include no header with inline code here beyond intrinsics and the registry's declarations.
#include <immintrin.h>

#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kTileRows = 6, kTileCols = 16, kKc = 256;

// Lanes [0, count) of an 8-lane mask (all lanes for count >= 8, none for count <= 0).
inline __m256i Mask(int64_t count) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const int c = count >= 8 ? 8 : count <= 0 ? 0 : static_cast<int>(count);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c), lane);
}

template <int R>
void Tile(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t kc, __m256i m0,
          __m256i m1, bool first) {
  __m256 acc0[R], acc1[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    acc0[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(c + r * ldc, m0);
    acc1[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(c + r * ldc + 8, m1);
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    const __m256 b0 = _mm256_maskload_ps(b + kk * ldb, m0);
    const __m256 b1 = _mm256_maskload_ps(b + kk * ldb + 8, m1);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + kk);
      acc0[r] = _mm256_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm256_fmadd_ps(av, b1, acc1[r]);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    _mm256_maskstore_ps(c + r * ldc, m0, acc0[r]);
    _mm256_maskstore_ps(c + r * ldc + 8, m1, acc1[r]);
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, __m256i, __m256i,
                        bool);
constexpr TileFn kTiles[kTileRows + 1] = {nullptr, &Tile<1>, &Tile<2>, &Tile<3>, &Tile<4>, &Tile<5>, &Tile<6>};

}  // namespace

void GemmF32Avx2(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k) {
  if (k == 0) {  // C = 0
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; j += 8) _mm256_maskstore_ps(c + i * ldc + j, Mask(n - j), _mm256_setzero_ps());
    }
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = k - k0 < kKc ? k - k0 : kKc;
    for (int64_t j0 = 0; j0 < n; j0 += kTileCols) {
      const __m256i m0 = Mask(n - j0), m1 = Mask(n - j0 - 8);
      for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
        const int64_t rows = m - i0 < kTileRows ? m - i0 : kTileRows;
        kTiles[rows](a + i0 * lda + k0, lda, b + k0 * ldb + j0, ldb, c + i0 * ldc + j0, ldc, kc, m0, m1, k0 == 0);
      }
    }
  }
}

}  // namespace gemmad::kernels
