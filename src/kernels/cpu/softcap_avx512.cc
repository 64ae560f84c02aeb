// AVX-512 logit soft-capping, x <- cap * tanh(x / cap), 16 lanes at a time (this file is
// compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq): the formula of softcap_avx2.cc
// (Cephes odd polynomial for |y| < 0.625, otherwise 1 - 2 / (exp(2|y|) + 1); |y| clamped at 10),
// with the last n % 16 elements as one masked load/store instead of a scalar loop; GeGLU
// (GeluTanhMulAvx512) with the same tanh; ExpShiftedAvx512 with its exp.
// GCC 12 reports the AVX-512 intrinsics' deliberately undefined pass-through operands
// (_mm256_undefined_*) as uninitialised when they are inlined here (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m512 Exp(__m512 x) {  // x in [0, 20]
  const __m512 log2e = _mm512_set1_ps(1.44269504088896341f);
  const __m512 ln2_hi = _mm512_set1_ps(0.693359375f);
  const __m512 ln2_lo = _mm512_set1_ps(-2.12194440e-4f);
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, ln2_hi, x);
  r = _mm512_fnmadd_ps(n, ln2_lo, r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  __m512 r2 = _mm512_mul_ps(r, r);
  p = _mm512_fmadd_ps(p, r2, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}

inline __m512 Tanh(__m512 y) {
  const __m512i sign_mask = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  const __m512i yi = _mm512_castps_si512(y);
  const __m512i sign = _mm512_and_si512(yi, sign_mask);
  __m512 a = _mm512_min_ps(_mm512_castsi512_ps(_mm512_andnot_si512(sign_mask, yi)), _mm512_set1_ps(10.0f));
  // Large branch: 1 - 2 / (e^{2a} + 1).
  __m512 e = Exp(_mm512_add_ps(a, a));
  __m512 big = _mm512_sub_ps(_mm512_set1_ps(1.0f),
                             _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, _mm512_set1_ps(1.0f))));
  // Small branch: a + a^3 P(a^2).
  __m512 z = _mm512_mul_ps(a, a);
  __m512 p = _mm512_set1_ps(-5.70498872745e-3f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(2.06390887954e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-5.37397155531e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(1.33314422036e-1f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-3.33332819422e-1f));
  __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, z), a, a);
  const __mmask16 use_small = _mm512_cmp_ps_mask(a, _mm512_set1_ps(0.625f), _CMP_LT_OQ);
  const __m512 t = _mm512_mask_blend_ps(use_small, big, small);
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
}

}  // namespace

void SoftCapAvx512(float* x, int64_t n, float cap) {
  const __m512 vcap = _mm512_set1_ps(cap);
  const __m512 inv = _mm512_set1_ps(1.0f / cap);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(x + i);
    _mm512_storeu_ps(x + i, _mm512_mul_ps(Tanh(_mm512_mul_ps(v, inv)), vcap));
  }
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    _mm512_mask_storeu_ps(x + i, m, _mm512_mul_ps(Tanh(_mm512_mul_ps(v, inv)), vcap));
  }
}

namespace {
inline __m512 Gelu16(__m512 z, __m512 u) {
  const __m512 k = _mm512_set1_ps(0.7978845608028654f), c = _mm512_set1_ps(0.044715f);
  const __m512 y = _mm512_mul_ps(k, _mm512_fmadd_ps(_mm512_mul_ps(c, z), _mm512_mul_ps(z, z), z));
  const __m512 g = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), z), _mm512_add_ps(_mm512_set1_ps(1.0f), Tanh(y)));
  return _mm512_mul_ps(g, u);
}
}  // namespace

void GeluTanhMulAvx512(const float* gate, const float* up, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, Gelu16(_mm512_loadu_ps(gate + i), _mm512_loadu_ps(up + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(out + i, m, Gelu16(_mm512_maskz_loadu_ps(m, gate + i), _mm512_maskz_loadu_ps(m, up + i)));
  }
}

// Exp's Cody-Waite reduction and polynomial hold for any argument whose 2^n is a normal float; the
// argument is clamped at the floor and the lanes below it set to 0.
void ExpShiftedAvx512(const float* x, int64_t n, float shift, float scale, float* out) {
  const __m512 vs = _mm512_set1_ps(shift), vk = _mm512_set1_ps(scale), floor = _mm512_set1_ps(kExpShiftedFloor);
  const auto one = [&](__m512 v) {
    const __m512 y = _mm512_mul_ps(_mm512_sub_ps(v, vs), vk);
    const __mmask16 keep = _mm512_cmp_ps_mask(y, floor, _CMP_GE_OQ);
    return _mm512_maskz_mov_ps(keep, Exp(_mm512_max_ps(y, floor)));
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, one(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(out + i, m, one(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace gemmad::kernels
