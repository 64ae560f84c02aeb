// AVX2 static int8 activation rounding (registry.h QuantizeInt8Fn / FakeQuantInt8Fn), 8 lanes at a
// time and the last n % 8 by the generic loop (this file is compiled with -mavx2 -mfma). The steps
// of the scalar formula in its order, as int8_round_avx512.cc describes.
#include <immintrin.h>

#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m256 RoundClamp(__m256 x, __m256 s) {
  const __m256 magic = _mm256_set1_ps(12582912.0f);
  __m256 v = _mm256_div_ps(x, s);
  v = _mm256_max_ps(_mm256_set1_ps(-128.0f), v);
  v = _mm256_min_ps(_mm256_set1_ps(127.0f), v);
  return _mm256_sub_ps(_mm256_add_ps(v, magic), magic);
}

}  // namespace

int64_t QuantizeInt8Avx2(const float* x, int64_t n, float s, int8_t* k) {
  const __m256 vs = _mm256_set1_ps(s);
  __m256i acc = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = RoundClamp(_mm256_loadu_ps(x + i), vs);
    // NaN lanes 0 (the compare's mask is all ones on ordered lanes).
    const __m256i q = _mm256_and_si256(_mm256_cvtps_epi32(v), _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q)));
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(k + i), _mm_packs_epi16(w, w));
    acc = _mm256_add_epi32(acc, q);
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  int64_t sum = 0;
  for (int32_t l : lanes) sum += l;
  return sum + QuantizeInt8Generic(x + i, n - i, s, k + i);
}

void FakeQuantInt8Avx2(const float* x, int64_t n, float s, float* y) {
  const __m256 vs = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(RoundClamp(_mm256_loadu_ps(x + i), vs), vs));
  FakeQuantInt8Generic(x + i, n - i, s, y + i);
}

}  // namespace gemmad::kernels
