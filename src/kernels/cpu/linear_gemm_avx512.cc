// The AVX-512 tile of cpu::LinearGemm (linear_gemm_tile.h; this file is compiled with -mavx512f
// -mavx512bw -mavx512vl -mavx512dq): 12 rows × 32 columns in 24 accumulators; every step of k
// loads two vectors of the packed B row and broadcasts 12 packed A values (24 FMAs per 14 loads:
// FMA-bound). Column tails are masked stores.
#include "kernels/cpu/avx512_intrinsics.h"

#include "kernels/cpu/linear_gemm_tile.h"

namespace gemmad::kernels::cpu {
namespace {

inline __mmask16 Mask(int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF)
                     : count <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << count) - 1u);
}

}  // namespace

void GemmTileAvx512(const float* ap, const float* bp, int64_t kc, float* c, int64_t ldc, int64_t rows, int64_t cols,
                    bool accumulate) {
  constexpr int R = static_cast<int>(kGemmTileRows);
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    acc0[r] = _mm512_setzero_ps();
    acc1[r] = _mm512_setzero_ps();
  }
  for (int64_t kk = 0; kk < kc; ++kk) {
    const __m512 b0 = _mm512_loadu_ps(bp + kk * kGemmTileCols);
    const __m512 b1 = _mm512_loadu_ps(bp + kk * kGemmTileCols + 16);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(ap[kk * kGemmTileRows + r]);
      acc0[r] = _mm512_fmadd_ps(a, b0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(a, b1, acc1[r]);
    }
  }
  const __mmask16 m0 = Mask(cols), m1 = Mask(cols - 16);
  for (int r = 0; r < R && r < rows; ++r) {
    float* cr = c + r * ldc;
    if (accumulate) {
      acc0[r] = _mm512_add_ps(acc0[r], _mm512_maskz_loadu_ps(m0, cr));
      acc1[r] = _mm512_add_ps(acc1[r], _mm512_maskz_loadu_ps(m1, cr + 16));
    }
    _mm512_mask_storeu_ps(cr, m0, acc0[r]);
    _mm512_mask_storeu_ps(cr + 16, m1, acc1[r]);
  }
}

}  // namespace gemmad::kernels::cpu
