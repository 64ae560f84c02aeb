// Table rows (tensor/lut_rows.h kLut4R / kLut2R) meeting int8 activations, AVX-512 VNNI
// (kernels/registry.h LinearLutIntFn; kernels/ops.h LinearStaticInt8). The activations are integers
// k in [-128, 127] and a row's table 16-bit integers n times one unit, so VPDPWSSD multiplies them
// exactly, 32 products an instruction (the fp32 table-row kernel does 16 an FMA, after a VPERMPS per
// 16 weights). Two code groups (32 bytes) zero-extend to 32 word lanes; each code position becomes
// 32 weights in one VPERMW over the row's table, held twice in a register (VPERMW reads 5 index
// bits: the replica makes the bit above a 4-bit code, and a 2-bit table's repeats the bits above a
// 2-bit code, irrelevant). Each int32 lane takes at most 256 instructions (|k·n| pairs < 2^23) before
// it is added into an fp32 accumulator, so no sum wraps. Tiles of 1 token x 4 rows and 4 x 2, every
// (token, row) in one accumulator pair over the same steps, so results are batch-invariant; a row's
// sum is then scaled once by s · unit.
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

// The row's 16 table integers twice over 32 word lanes.
inline __m512i TableWords(const uint8_t* row) {
  const __m256i n = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row));
  return _mm512_inserti64x4(_mm512_castsi256_si512(n), n, 1);
}

// out[t * R + r] = Σ_i k[t, i] · n_r[code_r(i)] (the integer sums, as floats).
template <int B, int T, int R>
void Tile(const int16_t* kb, int64_t words, int64_t in, const uint8_t* const* rows, float* out) {
  constexpr int64_t kGroup = tensor::LutGroupElements(B);
  constexpr int kCodes = 8 / B;
  constexpr int64_t kFlushPairs = 256 / kCodes;  // VPDPWSSDs into an int32 lane between flushes: 256
  __m512i table[R], iacc[T][R];
  __m512 facc[T][R];
  for (int r = 0; r < R; ++r) table[r] = TableWords(rows[r]);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      iacc[t][r] = _mm512_setzero_si512();
      facc[t][r] = _mm512_setzero_ps();
    }
  }
  const auto flush = [&] {
    for (int t = 0; t < T; ++t) {
      for (int r = 0; r < R; ++r) {
        facc[t][r] = _mm512_add_ps(facc[t][r], _mm512_cvtepi32_ps(iacc[t][r]));
        iacc[t][r] = _mm512_setzero_si512();
      }
    }
  };
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, static_cast<int64_t>(tensor::LutRowBytes(B, in)));
  const int64_t groups = in / kGroup;
  for (int64_t p = 0; p < (groups + 1) / 2; ++p) {
    const bool pair = 2 * p + 1 < groups;
    __m512i idx[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* c = rows[r] + tensor::kLutHeadBytes + 32 * p;
      const __m256i bytes = pair ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c))
                                 : _mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c)));
      idx[r] = _mm512_cvtepu8_epi16(bytes);
      if (p % 2 == 0) PrefetchAt(c + ahead, sp.level);  // one prefetch per row and cache line
    }
    for (int h = 0; h < kCodes; ++h) {
      __m512i wv[R];
      for (int r = 0; r < R; ++r) {
        const __m512i ix = h == 0 ? idx[r] : _mm512_srli_epi16(idx[r], static_cast<unsigned>(B * h));
        wv[r] = _mm512_permutexvar_epi16(ix, table[r]);
      }
      for (int t = 0; t < T; ++t) {
        const __m512i kv = _mm512_loadu_si512(kb + t * words + (p * kCodes + h) * 32);
        for (int r = 0; r < R; ++r) iacc[t][r] = _mm512_dpwssd_epi32(iacc[t][r], kv, wv[r]);
      }
    }
    if ((p + 1) % kFlushPairs == 0) flush();
  }
  flush();
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) out[t * R + r] = _mm512_reduce_add_ps(facc[t][r]);
  }
}

template <int B, int T, int R>
void RunTile(const int16_t* kb, int64_t words, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
             int64_t o, int64_t step, float* y, int64_t ldy) {
  const uint8_t* rows[R];
  float scale[R];
  for (int r = 0; r < R; ++r) {
    rows[r] = w + static_cast<size_t>(o + r * step) * stride;
    float unit;
    std::memcpy(&unit, rows[r] + tensor::kLutUnitOffset, sizeof(unit));
    scale[r] = s * unit;
  }
  float out[T * R];
  Tile<B, T, R>(kb + t0 * words, words, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) y[(t0 + t) * ldy + o + r * step] = out[t * R + r] * scale[r];
  }
}

template <int B, int T>
void RunTokens(const int16_t* kb, int64_t words, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
               int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 2;
  // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
  const auto full = [&](int64_t o, int64_t step) {
    RunTile<B, T, R>(kb, words, t0, in, s, w, stride, o, step, y, ldy);
  };
  const auto one = [&](int64_t o) { RunTile<B, T, 1>(kb, words, t0, in, s, w, stride, o, 1, y, ldy); };
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

template <int B>
void LinearLutInt(const int16_t* kb, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                  int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::LutRowBytes(B, in);
  const int64_t words = LutIntWords(in, B);
  int64_t t0 = 0;
  if (n > 1) {
    for (; t0 + 4 <= n; t0 += 4) RunTokens<B, 4>(kb, words, t0, in, s, w, stride, o_begin, o_end, y, ldy);
  }
  for (; t0 < n; ++t0) RunTokens<B, 1>(kb, words, t0, in, s, w, stride, o_begin, o_end, y, ldy);
}

}  // namespace

void LinearLut4RIntAvx512Vnni(const int16_t* kb, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                              int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<4>(kb, n, in, s, w, o_begin, o_end, y, ldy);
}

void LinearLut2RIntAvx512Vnni(const int16_t* kb, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                              int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<2>(kb, n, in, s, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
