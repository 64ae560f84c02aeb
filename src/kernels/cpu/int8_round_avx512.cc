// AVX-512 static int8 activation rounding (registry.h QuantizeInt8Fn / FakeQuantInt8Fn), 16 lanes at
// a time, the last n % 16 as one masked pass (this file is compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq). The scalar formula's steps in the same order: IEEE division, clamp to
// [-128, 127] with the operands ordered so that a NaN passes through (VMAXPS/VMINPS return their
// second operand when one is NaN), then + and - 1.5 · 2^23 (round to nearest, ties to even).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m512 RoundClamp(__m512 x, __m512 s) {
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  __m512 v = _mm512_div_ps(x, s);
  v = _mm512_max_ps(_mm512_set1_ps(-128.0f), v);
  v = _mm512_min_ps(_mm512_set1_ps(127.0f), v);
  return _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
}

// The integers of v (whole numbers in [-128, 127] or NaN), NaN lanes 0.
inline __m512i Ints(__m512 v) {
  return _mm512_maskz_cvtps_epi32(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
}

}  // namespace

int64_t QuantizeInt8Avx512(const float* x, int64_t n, float s, int8_t* k) {
  const __m512 vs = _mm512_set1_ps(s);
  __m512i acc = _mm512_setzero_si512();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i q = Ints(RoundClamp(_mm512_loadu_ps(x + i), vs));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(k + i), _mm512_cvtepi32_epi8(q));
    acc = _mm512_add_epi32(acc, q);
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512i q = _mm512_maskz_mov_epi32(m, Ints(RoundClamp(_mm512_maskz_loadu_ps(m, x + i), vs)));
    _mm512_mask_cvtepi32_storeu_epi8(k + i, m, q);
    acc = _mm512_add_epi32(acc, q);
  }
  return _mm512_reduce_add_epi32(acc);
}

void FakeQuantInt8Avx512(const float* x, int64_t n, float s, float* y) {
  const __m512 vs = _mm512_set1_ps(s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(RoundClamp(_mm512_loadu_ps(x + i), vs), vs));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(RoundClamp(_mm512_maskz_loadu_ps(m, x + i), vs), vs));
  }
}

}  // namespace gemmad::kernels
