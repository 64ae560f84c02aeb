// AVX2+FMA logit soft-capping, x <- cap * tanh(x / cap), 8 lanes at a time (this file is
// compiled with -mavx2 -mfma). Over a 262,144-entry vocabulary per token the scalar std::tanh
// was most of a decode step of a small model.
//
// tanh(y): for |y| < 0.625 the odd polynomial of the Cephes single-precision tanhf; otherwise
// 1 - 2 / (exp(2|y|) + 1) with the sign of y, exp by range reduction to [-ln2/2, ln2/2], a
// degree-6 polynomial and 2^n from the exponent bits. |y| is clamped at 10, where the formula
// rounds to exactly 1 (as std::tanh does from 9.01; at 9 it would still be 1 - 2^-24, and GeGLU's
// 1 + tanh(y) of a very negative gate would not be 0). Within 2 ulp of 1 in absolute terms of
// tanh; parity-tested against std::tanh. GeluTanhMulAvx2 (GeGLU) uses the same tanh.
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m256 Exp(__m256 x) {  // x in [0, 20]
  const __m256 log2e = _mm256_set1_ps(1.44269504088896341f);
  const __m256 ln2_hi = _mm256_set1_ps(0.693359375f);
  const __m256 ln2_lo = _mm256_set1_ps(-2.12194440e-4f);
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, ln2_hi, x);
  r = _mm256_fnmadd_ps(n, ln2_lo, r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  __m256 r2 = _mm256_mul_ps(r, r);
  p = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

inline __m256 Tanh(__m256 y) {
  const __m256 sign_mask = _mm256_set1_ps(-0.0f);
  __m256 sign = _mm256_and_ps(y, sign_mask);
  __m256 a = _mm256_min_ps(_mm256_andnot_ps(sign_mask, y), _mm256_set1_ps(10.0f));
  // Large branch: 1 - 2 / (e^{2a} + 1).
  __m256 e = Exp(_mm256_add_ps(a, a));
  __m256 big = _mm256_sub_ps(_mm256_set1_ps(1.0f),
                             _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, _mm256_set1_ps(1.0f))));
  // Small branch: a + a^3 P(a^2).
  __m256 z = _mm256_mul_ps(a, a);
  __m256 p = _mm256_set1_ps(-5.70498872745e-3f);
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-3.33332819422e-1f));
  __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), a, a);
  __m256 use_small = _mm256_cmp_ps(a, _mm256_set1_ps(0.625f), _CMP_LT_OQ);
  return _mm256_or_ps(_mm256_blendv_ps(big, small, use_small), sign);
}

}  // namespace

void SoftCapAvx2(float* x, int64_t n, float cap) {
  const __m256 vcap = _mm256_set1_ps(cap);
  const __m256 inv = _mm256_set1_ps(1.0f / cap);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    _mm256_storeu_ps(x + i, _mm256_mul_ps(Tanh(_mm256_mul_ps(v, inv)), vcap));
  }
  for (; i < n; ++i) x[i] = std::tanh(x[i] / cap) * cap;
}

void GeluTanhMulAvx2(const float* gate, const float* up, float* out, int64_t n) {
  const __m256 k = _mm256_set1_ps(0.7978845608028654f), c = _mm256_set1_ps(0.044715f);
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 z = _mm256_loadu_ps(gate + i);
    const __m256 y = _mm256_mul_ps(k, _mm256_fmadd_ps(_mm256_mul_ps(c, z), _mm256_mul_ps(z, z), z));
    const __m256 g = _mm256_mul_ps(_mm256_mul_ps(half, z), _mm256_add_ps(one, Tanh(y)));
    _mm256_storeu_ps(out + i, _mm256_mul_ps(g, _mm256_loadu_ps(up + i)));
  }
  for (; i < n; ++i) {
    const float z = gate[i];
    out[i] = 0.5f * z * (1.0f + std::tanh(0.7978845608028654f * (z + 0.044715f * z * z * z))) * up[i];
  }
}

// Exp's Cody-Waite reduction and polynomial hold for any argument whose 2^n is a normal float; the
// argument is clamped at the floor and the lanes below it set to 0.
void ExpShiftedAvx2(const float* x, int64_t n, float shift, float scale, float* out) {
  const __m256 vs = _mm256_set1_ps(shift), vk = _mm256_set1_ps(scale), floor = _mm256_set1_ps(kExpShiftedFloor);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 y = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), vs), vk);
    const __m256 keep = _mm256_cmp_ps(y, floor, _CMP_GE_OQ);
    _mm256_storeu_ps(out + i, _mm256_and_ps(keep, Exp(_mm256_max_ps(y, floor))));
  }
  for (; i < n; ++i) {
    const float y = (x[i] - shift) * scale;
    out[i] = y < kExpShiftedFloor ? 0.0f : std::exp(y);
  }
}

}  // namespace gemmad::kernels
