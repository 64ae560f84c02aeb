// AVX-512 GemmF32 (kernels/registry.h; this file is compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512dq): C = A·B with B row-major [k, n], as outer products — an 8-row × 32-column tile
// keeps 16 accumulators in registers, and every step of k loads two vectors of one B row and
// broadcasts one A element per row (16 FMAs per 10 loads: FMA-bound). k runs in blocks of kKc so
// a 32-column B panel (kKc × 32 floats) stays in L1 while the row tiles pass; C is accumulated
// across blocks. Column tails are masked loads/stores (no element outside [0, n) is touched).
// Include no header with inline code here beyond intrinsics and the registry's declarations.
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kTileRows = 8, kTileCols = 32, kKc = 256;

inline __mmask16 Mask(int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : count <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << count) - 1u);
}

// Rows [0, R) × columns [0, 32) (masked by m0, m1) of C += or = A[:, 0:kc]·B[0:kc, :].
template <int R>
void Tile(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t kc,
          __mmask16 m0, __mmask16 m1, bool first) {
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    acc0[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, c + r * ldc);
    acc1[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, c + r * ldc + 16);
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b + kk * ldb);
    const __m512 b1 = _mm512_maskz_loadu_ps(m1, b + kk * ldb + 16);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + kk]);
      acc0[r] = _mm512_fmadd_ps(av, b0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(av, b1, acc1[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, m0, acc0[r]);
    _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc1[r]);
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, __mmask16, __mmask16,
                        bool);
constexpr TileFn kTiles[kTileRows + 1] = {nullptr,  &Tile<1>, &Tile<2>, &Tile<3>, &Tile<4>,
                                          &Tile<5>, &Tile<6>, &Tile<7>, &Tile<8>};

}  // namespace

void GemmF32Avx512(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                   int64_t n, int64_t k) {
  if (k == 0) {  // C = 0
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; j += 16) _mm512_mask_storeu_ps(c + i * ldc + j, Mask(n - j), _mm512_setzero_ps());
    }
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = k - k0 < kKc ? k - k0 : kKc;
    for (int64_t j0 = 0; j0 < n; j0 += kTileCols) {
      const __mmask16 m0 = Mask(n - j0), m1 = Mask(n - j0 - 16);
      for (int64_t i0 = 0; i0 < m; i0 += kTileRows) {
        const int64_t rows = m - i0 < kTileRows ? m - i0 : kTileRows;
        kTiles[rows](a + i0 * lda + k0, lda, b + k0 * ldb + j0, ldb, c + i0 * ldc + j0, ldc, kc, m0, m1, k0 == 0);
      }
    }
  }
}

}  // namespace gemmad::kernels
