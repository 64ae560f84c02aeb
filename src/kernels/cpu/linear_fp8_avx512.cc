// FP8 Linear, AVX-512 (kernels/registry.h LinearF8Fn): each row's E4M3 bytes are widened to fp32 in
// registers, 16 at a time — the 7 magnitude bits shifted into an fp32 exponent/mantissa and scaled
// by 2^120 (which also turns E4M3 subnormals, fp32 denormals there, into their values; no DAZ is
// ever set), the sign bit moved to bit 31 — and meet up to 4 tokens' quantized activations per
// pass, so the row is read once for them. NaN codes (0x7F, 0xFF; never in a checkpoint) read as
// ±480. A masked tail covers rows of any length.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstring>

#include "kernels/registry.h"
#include "tensor/dtype.h"

namespace gemmad::kernels {
namespace {

constexpr int kTile = 4;

inline __m512 Decode16(__m128i bytes) {
  const __m512i u = _mm512_cvtepu8_epi32(bytes);
  const __m512i mag = _mm512_slli_epi32(_mm512_and_si512(u, _mm512_set1_epi32(0x7F)), 20);
  const __m512 f = _mm512_mul_ps(_mm512_castsi512_ps(mag), _mm512_set1_ps(0x1p120f));
  const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(u, _mm512_set1_epi32(0x80)), 24);
  return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(f), sign));
}

template <int T>
void RowTile(const float* xq, int64_t in, const uint8_t* q, float* acc_out) {
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) {
    const __m512 wv = Decode16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i)));
    for (int t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(_mm512_loadu_ps(xq + t * in + i), wv, acc[t]);
  }
  if (i < in) {
    const __mmask16 m = static_cast<__mmask16>((1u << (in - i)) - 1u);
    const __m512 wv = Decode16(_mm_maskz_loadu_epi8(m, q + i));
    for (int t = 0; t < T; ++t) acc[t] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, xq + t * in + i), wv, acc[t]);
  }
  for (int t = 0; t < T; ++t) acc_out[t] = _mm512_reduce_add_ps(acc[t]);
}

}  // namespace

void LinearF8RAvx512(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                     int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::RowBytes(tensor::DType::kF8R, in);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    float d;
    std::memcpy(&d, row, sizeof(float));
    const uint8_t* q = row + sizeof(float);
    float acc[kTile];
    for (int64_t t0 = 0; t0 < n; t0 += kTile) {
      const int64_t m = std::min<int64_t>(kTile, n - t0);
      const float* x = xq + t0 * in;
      switch (m) {
        case 4: RowTile<4>(x, in, q, acc); break;
        case 3: RowTile<3>(x, in, q, acc); break;
        case 2: RowTile<2>(x, in, q, acc); break;
        default: RowTile<1>(x, in, q, acc); break;
      }
      for (int64_t t = 0; t < m; ++t) y[(t0 + t) * ldy + o] = acc[t] * d * s[t0 + t];
    }
  }
}

}  // namespace gemmad::kernels
