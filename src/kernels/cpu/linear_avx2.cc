// AVX2+FMA linear kernels (this file is compiled with -mavx2 -mfma): 8 lanes per FMA, up to four
// tokens share each weight load, bf16 widened by a 16-bit shift. Unaligned loads throughout.
// Include no header with inline code here beyond intrinsics and the registry's declarations.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 Load8(const uint16_t* p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline float Widen(float w) { return w; }
// Local (internal-linkage) widening: header inline functions must not be instantiated in an
// ISA-flagged file, or the linker could hand their AVX2 copy to generic code.
inline float Widen(uint16_t w) {
  uint32_t bits = static_cast<uint32_t>(w) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float HorizontalSum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v);
  __m128 hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  __m128 sh = _mm_movehdup_ps(lo);
  lo = _mm_add_ps(lo, sh);
  sh = _mm_movehl_ps(sh, lo);
  return _mm_cvtss_f32(_mm_add_ss(lo, sh));
}

// NT tokens (1..4) against one weight row.
template <int NT, typename W>
inline void DotRows(const float* x, int64_t in, const W* wr, float* out) {
  __m256 acc[NT];
  for (int k = 0; k < NT; ++k) acc[k] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    __m256 wv = Load8(wr + i);
    for (int k = 0; k < NT; ++k) acc[k] = _mm256_fmadd_ps(Load8(x + k * in + i), wv, acc[k]);
  }
  for (int k = 0; k < NT; ++k) {
    float s = HorizontalSum(acc[k]);
    for (int64_t j = i; j < in; ++j) s += x[k * in + j] * Widen(wr[j]);
    out[k] = s;
  }
}

template <typename W>
void LinearAvx2(const float* x, int64_t n, int64_t in, const W* w, int64_t o_begin, int64_t o_end,
                float* y, int64_t ldy) {
  float r[4];
  for (int64_t o = o_begin; o < o_end; ++o) {
    const W* wr = w + o * in;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      DotRows<4>(x + t * in, in, wr, r);
      for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = r[k];
    }
    for (; t < n; ++t) {
      DotRows<1>(x + t * in, in, wr, r);
      y[t * ldy + o] = r[0];
    }
  }
}

void LinearF32Avx2(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin, int64_t o_end,
                   float* y, int64_t ldy) {
  LinearAvx2(x, n, in, w, o_begin, o_end, y, ldy);
}
void LinearBf16Avx2(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                    int64_t o_end, float* y, int64_t ldy) {
  LinearAvx2(x, n, in, w, o_begin, o_end, y, ldy);
}
bool Avx2Supported() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

}  // namespace

const CpuKernelTable* Avx2CpuKernels() {
  static const CpuKernelTable table{"avx2", &Avx2Supported, &LinearF32Avx2, &LinearBf16Avx2, &SoftCapAvx2};
  return &table;
}

}  // namespace gemmad::kernels
