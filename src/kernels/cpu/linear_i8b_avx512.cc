// kI8BR Linear, AVX-512 (kernels/registry.h LinearLutFn; tensor/i8b_rows.h): 16 int8 weights
// sign-extend to dword lanes, convert, multiply by the row scale and round to bf16 in the integer
// lanes (add 0x7FFF plus the kept bit's lowest, clear the low 16 bits: tensor::FloatToBf16's
// rounding for finite values), then one FMA per token. A row's tail (in % 16) reads masked. Tiles
// of 1 token x 4 rows (prefetched ahead as the other batch-1 kernels) and 4 x 2; every (token, row)
// sums in one accumulator over the same 16-wide steps: batch-invariant.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/i8b_rows.h"

namespace gemmad::kernels {
namespace {

// bf16(q · s) for 16 int8 codes, as floats.
inline __m512 Weights(__m128i q, __m512 s) {
  const __m512i b = _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), s));
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(1));
  const __m512i r = _mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF)));
  return _mm512_castsi512_ps(_mm512_and_si512(r, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// out[t * R + r] = Σ_i x[t, i] · bf16(q_r[i] · s_r).
template <int T, int R>
void Tile(const float* x, int64_t in, const uint8_t* const* rows, float* out) {
  __m512 scale[R], acc[T][R];
  for (int r = 0; r < R; ++r) scale[r] = _mm512_set1_ps(tensor::I8BRowScale(rows[r]));
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, static_cast<int64_t>(tensor::kI8BHeadBytes) + in);
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) {
    __m512 wv[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* q = rows[r] + tensor::kI8BHeadBytes + i;
      if (i % 64 == 0) PrefetchAt(q + ahead, T == 1 ? sp.level_ct : sp.level);  // one prefetch per row and cache line
      wv[r] = Weights(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), scale[r]);
    }
    for (int t = 0; t < T; ++t) {
      const __m512 xv = _mm512_loadu_ps(x + t * in + i);
      for (int r = 0; r < R; ++r) acc[t][r] = _mm512_fmadd_ps(xv, wv[r], acc[t][r]);
    }
  }
  if (i < in) {
    const auto m = static_cast<__mmask16>((1u << (in - i)) - 1);
    __m512 wv[R];
    for (int r = 0; r < R; ++r) wv[r] = Weights(_mm_maskz_loadu_epi8(m, rows[r] + tensor::kI8BHeadBytes + i), scale[r]);
    for (int t = 0; t < T; ++t) {
      const __m512 xv = _mm512_maskz_loadu_ps(m, x + t * in + i);
      for (int r = 0; r < R; ++r) acc[t][r] = _mm512_fmadd_ps(xv, wv[r], acc[t][r]);
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) out[t * R + r] = _mm512_reduce_add_ps(acc[t][r]);
  }
}

template <int T, int R>
void RunTile(const float* x, int64_t t0, int64_t in, const uint8_t* w, size_t stride, int64_t o, int64_t step, float* y,
             int64_t ldy) {
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = w + static_cast<size_t>(o + r * step) * stride;
  float out[T * R];
  Tile<T, R>(x + t0 * in, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) y[(t0 + t) * ldy + o + r * step] = out[t * R + r];
  }
}

template <int T>
void RunTokens(const float* x, int64_t t0, int64_t in, const uint8_t* w, size_t stride, int64_t o_begin,
               int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 2;
  // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
  const auto full = [&](int64_t o, int64_t step) {
    RunTile<T, R>(x, t0, in, w, stride, o, step, y, ldy);
  };
  const auto one = [&](int64_t o) { RunTile<T, 1>(x, t0, in, w, stride, o, 1, y, ldy); };
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

}  // namespace

void LinearI8BRAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                      float* y, int64_t ldy) {
  const size_t stride = tensor::kI8BHeadBytes + static_cast<size_t>(in);
  int64_t t0 = 0;
  if (n > 1) {
    for (; t0 + 4 <= n; t0 += 4) RunTokens<4>(x, t0, in, w, stride, o_begin, o_end, y, ldy);
  }
  for (; t0 < n; ++t0) RunTokens<1>(x, t0, in, w, stride, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
