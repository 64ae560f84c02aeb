// FP8 Linear, AVX-512 (kernels/registry.h LinearF8Fn). E4M3 bytes are widened through IEEE half:
// the 7 magnitude bits shifted left by 7 are an f16 of 1/256 the value (exponent bias 15 against
// E4M3's 7; E4M3 subnormals land on f16 subnormals, so no special case), the sign goes to bit 15,
// and vcvtph2ps gives 16 floats: 3 integer operations and the convert per 16 weights. The 2^8 goes
// into the row scale at the end (exact). NaN codes (0x7F, 0xFF; never in a checkpoint) read as ±480.
// Tiles of T tokens x R rows share each decoded weight vector and each activation load: 1 x 4 rows at
// batch 1 (four independent row streams, prefetched ahead as the other batch-1 kernels do,
// kernels/stream_params.h), 4 x 2 above. Every (token, row) sums in one accumulator over 16-wide
// steps in the same order with a masked tail, then one horizontal add, whatever the tile: results are
// batch- and range-invariant.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstring>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"

namespace gemmad::kernels {
namespace {

// 16 E4M3 codes -> 16 floats of 1/256 their value. Sign-extended to 16 bits, the code's sign fills
// bits 7..15; shifted left by 7, the magnitude bits 6..0 land on 13..7 and the sign on 15 and 14;
// clearing 14 leaves the f16. Three integer operations where an earlier form took five (on an Ice
// Lake Xeon, with the convert's two micro-ops and the FMA, the two vector ports' share per 16 weights
// went from eight to six; docs/cpu-performance.md §33).
inline __m512 Decode16(__m128i bytes) {
  const __m256i s = _mm256_cvtepi8_epi16(bytes);
  const __m256i h = _mm256_and_si256(_mm256_slli_epi16(s, 7), _mm256_set1_epi16(static_cast<short>(0xBFFF)));
  return _mm512_cvtph_ps(h);
}

inline __m128i LoadBytes(const uint8_t* p, int64_t left) {
  if (left >= 16) return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm_maskz_loadu_epi8(static_cast<__mmask16>((1u << left) - 1u), p);
}

inline __m512 LoadX(const float* p, int64_t left) {
  if (left >= 16) return _mm512_loadu_ps(p);
  return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << left) - 1u), p);
}

// out[t * R + r] = Σ_i xq[t, i] · e4m3(rows[r][i]) / 256.
template <int T, int R>
void Tile(const float* xq, int64_t in, const uint8_t* const* rows, float* out) {
  __m512 acc[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, in + 4);
  for (int64_t i = 0; i < in; i += 16) {
    const int64_t left = in - i;
    __m512 w[R];
    for (int r = 0; r < R; ++r) w[r] = Decode16(LoadBytes(rows[r] + i, left));
    // The weights stream from memory (batch 1, the first token group of a few-token step): one
    // prefetch per row and cache line.
    if (i % 64 == 0) {
      for (int r = 0; r < R; ++r) PrefetchAt(rows[r] + i + ahead, T == 1 ? sp.level_ct : sp.level);
    }
    for (int t = 0; t < T; ++t) {
      const __m512 x = LoadX(xq + t * in + i, left);
      for (int r = 0; r < R; ++r) acc[t][r] = _mm512_fmadd_ps(x, w[r], acc[t][r]);
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) out[t * R + r] = _mm512_reduce_add_ps(acc[t][r]);
  }
}

inline float RowScale(const uint8_t* row) {
  float d;
  std::memcpy(&d, row, sizeof(float));
  return d;
}

template <int T, int R>
void RunTile(const float* xq, const float* s, int64_t t0, int64_t in, const uint8_t* w, size_t stride, int64_t o,
             int64_t step, float* y, int64_t ldy) {
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = w + static_cast<size_t>(o + r * step) * stride + sizeof(float);
  float out[T * R];
  Tile<T, R>(xq + t0 * in, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      y[(t0 + t) * ldy + o + r * step] = out[t * R + r] * (256.0f * RowScale(rows[r] - sizeof(float))) * s[t0 + t];
    }
  }
}

template <int T>
void RunTokens(const float* xq, const float* s, int64_t t0, int64_t in, const uint8_t* w, size_t stride,
               int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 2;
  // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
  const auto full = [&](int64_t o, int64_t step) {
    RunTile<T, R>(xq, s, t0, in, w, stride, o, step, y, ldy);
  };
  const auto one = [&](int64_t o) { RunTile<T, 1>(xq, s, t0, in, w, stride, o, 1, y, ldy); };
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

}  // namespace

void LinearF8RAvx512(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                     int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::RowBytes(tensor::DType::kF8R, in);
  if (n == 1) {
    RunTokens<1>(xq, s, 0, in, w, stride, o_begin, o_end, y, ldy);
    return;
  }
  int64_t t0 = 0;
  for (; t0 + 4 <= n; t0 += 4) RunTokens<4>(xq, s, t0, in, w, stride, o_begin, o_end, y, ldy);
  for (; t0 < n; ++t0) RunTokens<1>(xq, s, t0, in, w, stride, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
