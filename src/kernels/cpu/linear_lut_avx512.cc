// Table-row Linear, AVX-512 (kernels/registry.h LinearLutFn; tensor/lut_rows.h kLut4R / kLut2R).
// A row's 16-entry table sits in one register (its integers times its unit, made once per row);
// 16 code bytes zero-extend to 16 dword lanes
// (VPMOVZXBD), and each of their 8 / bits codes becomes 16 weights in one VPERMPS (which reads the
// low 4 bits of each lane: the 4-bit low code as it is, the others after one shift; the 2-bit
// table repeats its values so the codes above the wanted one do not matter). Per 32 int4 weights:
// one extension, one shift, two permutes, then one FMA per token and 16 weights. The weights are
// exactly the table's, so a product is fp32 Σ x · w as for a bf16 matrix of the same values.
// Tiles of T tokens x R rows share each permuted weight vector and each activation load: 1 x 4
// rows at batch 1 (four row streams, prefetched ahead as the other batch-1 kernels are,
// kernels/stream_params.h), 4 x 2 above. Every (token, row) sums in one accumulator over 16-wide
// steps in element-group order, then one horizontal add, whatever the tile: batch-invariant.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cstring>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

// The row's table as 16 floats: float(n) · unit (tensor/lut_rows.h).
inline __m512 TableOf(const uint8_t* row) {
  const __m512i n = _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)));
  float unit;
  std::memcpy(&unit, row + tensor::kLutUnitOffset, sizeof(unit));
  return _mm512_mul_ps(_mm512_cvtepi32_ps(n), _mm512_set1_ps(unit));
}

// out[t * R + r] = Σ_i x[t, i] · lut_r[code_r(i)].
template <int B, int T, int R>
void Tile(const float* x, int64_t in, const uint8_t* const* rows, float* out) {
  constexpr int64_t kGroup = tensor::LutGroupElements(B);
  constexpr int kCodes = 8 / B;
  __m512 lut[R], acc[T][R];
  for (int r = 0; r < R; ++r) lut[r] = TableOf(rows[r]);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, static_cast<int64_t>(tensor::LutRowBytes(B, in)));
  const int64_t groups = in / kGroup;
  for (int64_t g = 0; g < groups; ++g) {
    __m512i idx[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* c = rows[r] + tensor::kLutHeadBytes + 16 * g;
      idx[r] = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c)));
      if (g % 4 == 0) PrefetchAt(c + ahead, T == 1 ? sp.level_ct : sp.level);  // one prefetch per row and cache line
    }
    for (int h = 0; h < kCodes; ++h) {
      __m512 wv[R];
      for (int r = 0; r < R; ++r) {
        const __m512i ix = h == 0 ? idx[r] : _mm512_srli_epi32(idx[r], static_cast<unsigned>(B * h));
        wv[r] = _mm512_permutexvar_ps(ix, lut[r]);
      }
      for (int t = 0; t < T; ++t) {
        const __m512 xv = _mm512_loadu_ps(x + t * in + g * kGroup + 16 * h);
        for (int r = 0; r < R; ++r) acc[t][r] = _mm512_fmadd_ps(xv, wv[r], acc[t][r]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) out[t * R + r] = _mm512_reduce_add_ps(acc[t][r]);
  }
}

template <int B, int T, int R>
void RunTile(const float* x, int64_t t0, int64_t in, const uint8_t* w, size_t stride, int64_t o, int64_t step, float* y,
             int64_t ldy) {
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = w + static_cast<size_t>(o + r * step) * stride;
  float out[T * R];
  Tile<B, T, R>(x + t0 * in, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) y[(t0 + t) * ldy + o + r * step] = out[t * R + r];
  }
}

template <int B, int T>
void RunTokens(const float* x, int64_t t0, int64_t in, const uint8_t* w, size_t stride, int64_t o_begin,
               int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 2;
  // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
  const auto full = [&](int64_t o, int64_t step) {
    RunTile<B, T, R>(x, t0, in, w, stride, o, step, y, ldy);
  };
  const auto one = [&](int64_t o) { RunTile<B, T, 1>(x, t0, in, w, stride, o, 1, y, ldy); };
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

template <int B>
void LinearLut(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end, float* y,
               int64_t ldy) {
  const size_t stride = tensor::LutRowBytes(B, in);
  int64_t t0 = 0;
  if (n > 1) {
    for (; t0 + 4 <= n; t0 += 4) RunTokens<B, 4>(x, t0, in, w, stride, o_begin, o_end, y, ldy);
  }
  for (; t0 < n; ++t0) RunTokens<B, 1>(x, t0, in, w, stride, o_begin, o_end, y, ldy);
}

}  // namespace

void LinearLut4RAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy) {
  LinearLut<4>(x, n, in, w, o_begin, o_end, y, ldy);
}

void LinearLut2RAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy) {
  LinearLut<2>(x, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
