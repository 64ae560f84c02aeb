// AVX2 row kernels of the bicubic antialiased resize (built with -mavx2 on x86-64 only; chosen at
// run time). Pairs of taps go through vpmaddwd (u8 widened to int16 times int16 weights, summed
// into int32), the same exact integer sums as the generic kernels in resize_rows.cc.
#include <immintrin.h>

#include <algorithm>

#include "mm/resize_rows.h"

namespace gemmad::mm::internal {
namespace {

inline uint8_t ClampToU8(int32_t v) { return static_cast<uint8_t>(std::clamp(v, 0, 255)); }

// Two int16 weights as the int32 pattern vpmaddwd pairs with (lo, hi) 16-bit lanes.
inline int32_t WeightPair(int16_t lo, int16_t hi) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(lo)) |
                              (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16));
}

// Per output pixel: taps in fours (two 8-byte loads, pixels j, j+1 | j+2, j+3), then in twos, then
// one by one; loads never pass the end of the input row.
void HorizontalRowAvx2(const BicubicAaAxis& ax, const uint8_t* in, uint8_t* out) {
  const int32_t init = int32_t{1} << (ax.precision - 1);
  const int shift = ax.precision;
  // Bytes r0 g0 b0 r1 g1 b1 -> 16-bit lanes r0 r1 g0 g1 b0 b1 0 0 (per 128-bit lane).
  const __m128i mask128 = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
  const __m256i mask256 = _mm256_broadcastsi128_si256(mask128);
  const __m256i pair_index = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  for (int64_t x = 0; x < ax.out_len; ++x) {
    const int16_t* w = ax.weights.data() + x * ax.taps;
    const uint8_t* p = in + ax.first[x] * 3;
    const int64_t n = ax.count[x];
    const int64_t bytes = (ax.in_len - ax.first[x]) * 3;  // readable from p
    __m256i acc256 = _mm256_setzero_si256();
    int64_t j = 0;
    for (; j + 4 <= n && 3 * j + 14 <= bytes; j += 4) {
      const __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 3 * j));
      const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 3 * j + 6));
      const __m256i px = _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1), mask256);
      const __m128i w4 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(w + j));
      const __m256i wv = _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(w4), pair_index);
      acc256 = _mm256_add_epi32(acc256, _mm256_madd_epi16(px, wv));
    }
    __m128i acc = _mm_add_epi32(_mm256_castsi256_si128(acc256), _mm256_extracti128_si256(acc256, 1));
    for (; j + 2 <= n && 3 * j + 8 <= bytes; j += 2) {
      const __m128i px = _mm_shuffle_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 3 * j)), mask128);
      acc = _mm_add_epi32(acc, _mm_madd_epi16(px, _mm_set1_epi32(WeightPair(w[j], w[j + 1]))));
    }
    alignas(16) int32_t sums[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(sums), acc);
    int32_t r = init + sums[0], g = init + sums[1], bl = init + sums[2];
    for (; j < n; ++j) {
      const int32_t wj = w[j];
      r += wj * p[3 * j];
      g += wj * p[3 * j + 1];
      bl += wj * p[3 * j + 2];
    }
    out[3 * x] = ClampToU8(r >> shift);
    out[3 * x + 1] = ClampToU8(g >> shift);
    out[3 * x + 2] = ClampToU8(bl >> shift);
  }
}

// 32 columns at a time, taps in pairs: bytes of rows j and j+1 interleaved and widened to 16-bit
// (x_j, x_j+1) pairs, times (w_j, w_j+1). The four int32 accumulators hold columns 0-3/16-19,
// 4-7/20-23, 8-11/24-27 and 12-15/28-31, which the two saturating packs put back in order.
void VerticalRowAvx2(const uint8_t* const* rows, const int16_t* w, int64_t n, int precision, int64_t len,
                     uint8_t* out) {
  const int32_t init = int32_t{1} << (precision - 1);
  const __m256i vinit = _mm256_set1_epi32(init);
  const __m256i zero = _mm256_setzero_si256();
  const __m128i count = _mm_cvtsi32_si128(precision);
  int64_t k = 0;
  for (; k + 32 <= len; k += 32) {
    __m256i a0 = vinit, a1 = vinit, a2 = vinit, a3 = vinit;
    for (int64_t j = 0; j < n; j += 2) {
      const bool pair = j + 1 < n;
      const __m256i wv = _mm256_set1_epi32(WeightPair(w[j], pair ? w[j + 1] : int16_t{0}));
      const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[j] + k));
      const __m256i x1 = pair ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[j + 1] + k)) : zero;
      const __m256i lo = _mm256_unpacklo_epi8(x0, x1);
      const __m256i hi = _mm256_unpackhi_epi8(x0, x1);
      a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi8(lo, zero), wv));
      a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi8(lo, zero), wv));
      a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi8(hi, zero), wv));
      a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi8(hi, zero), wv));
    }
    const __m256i s01 = _mm256_packs_epi32(_mm256_sra_epi32(a0, count), _mm256_sra_epi32(a1, count));
    const __m256i s23 = _mm256_packs_epi32(_mm256_sra_epi32(a2, count), _mm256_sra_epi32(a3, count));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm256_packus_epi16(s01, s23));
  }
  for (; k < len; ++k) {
    int32_t acc = init;
    for (int64_t j = 0; j < n; ++j) acc += int32_t{w[j]} * rows[j][k];
    out[k] = ClampToU8(acc >> precision);
  }
}

bool Avx2Supported() { return __builtin_cpu_supports("avx2"); }

}  // namespace

const ResizeRowKernels* Avx2ResizeRowKernels() {
  static const ResizeRowKernels kernels{"avx2", &HorizontalRowAvx2, &VerticalRowAvx2};
  return Avx2Supported() ? &kernels : nullptr;
}

}  // namespace gemmad::mm::internal
