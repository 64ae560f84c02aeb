// The horizontal sum of an 8-float AVX2 register, shared by the AVX2 row kernels (fp8, code-table
// and int8 rows). Included by AVX2 translation units only: internal linkage (an unnamed namespace),
// so each file keeps its own copy compiled with its own flags. Intrinsics only.
#pragma once

#include <immintrin.h>

namespace gemmad::kernels {
namespace {

// ((v0 + v4) + (v2 + v6)) + ((v1 + v5) + (v3 + v7)): the same order in every caller.
inline float Sum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace
}  // namespace gemmad::kernels
