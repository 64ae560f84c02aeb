// Table-row Linear, AVX2 (kernels/registry.h LinearLutFn; tensor/lut_rows.h kLut4R / kLut2R). The
// row's 16-entry table in two registers (entries 0-7, 8-15); 8 code bytes zero-extend to 8 dword
// lanes, each code becomes 8 weights by two VPERMPS (the low 3 bits of each lane) and a blend on
// bit 3 (moved to the sign bit, which VBLENDVPS reads). Up to 4 tokens per pass over a row; every
// (token, row) sums in one 8-wide accumulator in element order, then one horizontal add, whatever
// the pass: batch-invariant.
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/avx2_sum.h"
#include "kernels/registry.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

constexpr int kTile = 4;

inline __m256 Lookup(__m256i idx, __m256 lo, __m256 hi) {
  const __m256 a = _mm256_permutevar8x32_ps(lo, idx), b = _mm256_permutevar8x32_ps(hi, idx);
  return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}

template <int B, int T>
void RowTile(const float* x, int64_t in, const uint8_t* row, float* out) {
  constexpr int64_t kGroup = tensor::LutGroupElements(B);
  float unit;  // the table: float(n) · unit (tensor/lut_rows.h)
  std::memcpy(&unit, row + tensor::kLutUnitOffset, sizeof(unit));
  const __m256 u = _mm256_set1_ps(unit);
  const auto* n = reinterpret_cast<const __m128i*>(row);
  const __m256 lo = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(n))), u);
  const __m256 hi = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(n + 1))), u);
  const uint8_t* codes = row + tensor::kLutHeadBytes;
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t g = 0; g < in / kGroup; ++g) {
    __m256i idx[2];
    for (int half = 0; half < 2; ++half) {
      int64_t raw;
      std::memcpy(&raw, codes + 16 * g + 8 * half, 8);
      idx[half] = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(raw));
    }
    for (int h = 0; h < 8 / B; ++h) {
      for (int half = 0; half < 2; ++half) {
        const __m256i ix = h == 0 ? idx[half] : _mm256_srli_epi32(idx[half], B * h);
        const __m256 wv = Lookup(ix, lo, hi);
        const int64_t i = g * kGroup + 16 * h + 8 * half;
        for (int t = 0; t < T; ++t) acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(x + t * in + i), wv, acc[t]);
      }
    }
  }
  for (int t = 0; t < T; ++t) out[t] = Sum8(acc[t]);
}

template <int B>
void LinearLut(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end, float* y,
               int64_t ldy) {
  const size_t stride = tensor::LutRowBytes(B, in);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    int64_t t = 0;
    float out[kTile];
    for (; t + kTile <= n; t += kTile) {
      RowTile<B, kTile>(x + t * in, in, row, out);
      for (int k = 0; k < kTile; ++k) y[(t + k) * ldy + o] = out[k];
    }
    for (; t < n; ++t) {
      RowTile<B, 1>(x + t * in, in, row, out);
      y[t * ldy + o] = out[0];
    }
  }
}

}  // namespace

void LinearLut4RAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                     float* y, int64_t ldy) {
  LinearLut<4>(x, n, in, w, o_begin, o_end, y, ldy);
}

void LinearLut2RAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                     float* y, int64_t ldy) {
  LinearLut<2>(x, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
