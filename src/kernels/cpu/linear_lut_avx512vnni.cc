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
//
// A 2-bit row whose table is linear in the code, n[c] = a + b·c (every symmetric int2 table: its
// values -2, -1, 0, 1 times bf16(s) round alike), skips the table: Σ k·n[c] = a·Σk + b·Σ k·c, and
// Σ k·c is VPDPBUSD over the code bytes themselves, each masked to one code position h (unsigned
// bytes c·4^h, 64 of them an instruction against 64 int8 activations laid out to match, one int32
// accumulator per h shifted down by 2h at the end). That is 4 ANDs and 4 VPDPBUSDs per 256 weights
// where the table path takes 8 VPERMWs, 8 VPDPWSSDs and 7 shifts and widenings; the sums are exact
// integers (|Σ k·c| < 2^31 for rows up to 5 million elements) and each row's result is one rounding
// of its exact integer. Whether a row takes it is the row's own table's property, never its tile's,
// so every row's result is the same in every batch.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cstdint>
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

// The row's table as n[c] = a + b·c for its four 2-bit codes, when it is one.
inline bool LinearTable2(const uint8_t* row, int32_t* a, int32_t* b) {
  int16_t n[4];
  std::memcpy(n, row, sizeof(n));
  const int32_t d = n[1] - n[0];
  *a = n[0];
  *b = d;
  return n[2] - n[1] == d && n[3] - n[2] == d;
}

// out[t * R + r] = Σ_i k[t, i] · c_r(i), the rows' 2-bit codes against the byte lane order (registry.h
// LutIntActs): chunk c of 64 code bytes (256 elements, the last one masked to the row's bytes), each
// masked to code position h (bytes c·4^h) and multiplied into accumulator h.
template <int T, int R>
void TileCodes2(const int8_t* kb, int64_t kbytes, int64_t in, const uint8_t* const* rows, int64_t* out) {
  __m512i acc[T][R][4];
  #pragma GCC unroll 4
  for (int t = 0; t < T; ++t) {
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      #pragma GCC unroll 4
      for (int h = 0; h < 4; ++h) acc[t][r][h] = _mm512_setzero_si512();
    }
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, static_cast<int64_t>(tensor::LutRowBytes(2, in)));
  const int64_t code_bytes = in / 4, chunks = (code_bytes + 63) / 64;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t left = code_bytes - 64 * c;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    __m512i v[R];
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = rows[r] + tensor::kLutHeadBytes + 64 * c;
      v[r] = _mm512_maskz_loadu_epi8(m, p);
      PrefetchAt(p + ahead, sp.level);
    }
    #pragma GCC unroll 4
    for (int h = 0; h < 4; ++h) {
      const __m512i mask = _mm512_set1_epi8(static_cast<char>(3 << (2 * h)));
      __m512i cv[R];
      #pragma GCC unroll 4
      for (int r = 0; r < R; ++r) cv[r] = _mm512_and_si512(v[r], mask);
      #pragma GCC unroll 4
      for (int t = 0; t < T; ++t) {
        const __m512i kv = _mm512_loadu_si512(kb + t * kbytes + (4 * c + h) * 64);
        #pragma GCC unroll 4
        for (int r = 0; r < R; ++r) acc[t][r][h] = _mm512_dpbusd_epi32(acc[t][r][h], cv[r], kv);
      }
    }
  }
  #pragma GCC unroll 4
  for (int t = 0; t < T; ++t) {
    #pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      __m512i sum = acc[t][r][0];
      #pragma GCC unroll 4
      for (int h = 1; h < 4; ++h) {
        sum = _mm512_add_epi32(sum, _mm512_srai_epi32(acc[t][r][h], static_cast<unsigned>(2 * h)));
      }
      out[t * R + r] = _mm512_reduce_add_epi32(sum);
    }
  }
}

// Rows o + r·step (r < R), each with a linear table (a[r], b[r]).
template <int T, int R>
void RunTileLinear2(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
                    int64_t o, int64_t step, float* y, int64_t ldy) {
  const uint8_t* rows[R];
  int32_t a[R], b[R];
  float scale[R];
  for (int r = 0; r < R; ++r) {
    rows[r] = w + static_cast<size_t>(o + r * step) * stride;
    LinearTable2(rows[r], &a[r], &b[r]);
    float unit;
    std::memcpy(&unit, rows[r] + tensor::kLutUnitOffset, sizeof(unit));
    scale[r] = s * unit;
  }
  const int64_t kbytes = LutIntBytes(in);
  int64_t out[T * R];
  TileCodes2<T, R>(k.bytes + t0 * kbytes, kbytes, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      const int64_t total = int64_t{b[r]} * out[t * R + r] + int64_t{a[r]} * k.sums[t0 + t];
      y[(t0 + t) * ldy + o + r * step] = static_cast<float>(total) * scale[r];
    }
  }
}

template <int B, int T>
void RunTokens(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
               int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t words = LutIntWords(in, B);
  if constexpr (B == 2) {
    // Each row by its own table: linear ones on the code bytes, the rest through the table.
    const auto linear = [&](int64_t o) {
      int32_t a, b;
      return LinearTable2(w + static_cast<size_t>(o) * stride, &a, &b);
    };
    const auto one = [&](int64_t o) {
      if (linear(o)) {
        RunTileLinear2<T, 1>(k, t0, in, s, w, stride, o, 1, y, ldy);
      } else {
        RunTile<B, T, 1>(k.words, words, t0, in, s, w, stride, o, 1, y, ldy);
      }
    };
    // A lone token: four sequential streams (QuarterStreams); more: a row at a time against 4 tokens.
    const auto full = [&](int64_t o, int64_t step) {
      if (T == 1 && linear(o) && linear(o + step) && linear(o + 2 * step) && linear(o + 3 * step)) {
        RunTileLinear2<1, 4>(k, t0, in, s, w, stride, o, step, y, ldy);
      } else {
        for (int64_t r = 0; r < (T == 1 ? 4 : 1); ++r) one(o + r * step);
      }
    };
    RowTiles<T == 1 ? 4 : 1>(T == 1, o_begin, o_end, full, one);
  } else {
    // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
    constexpr int R = T == 1 ? 4 : 2;
    const auto full = [&](int64_t o, int64_t step) {
      RunTile<B, T, R>(k.words, words, t0, in, s, w, stride, o, step, y, ldy);
    };
    const auto one = [&](int64_t o) { RunTile<B, T, 1>(k.words, words, t0, in, s, w, stride, o, 1, y, ldy); };
    RowTiles<R>(T == 1, o_begin, o_end, full, one);
  }
}

template <int B>
void LinearLutInt(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                  int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::LutRowBytes(B, in);
  int64_t t0 = 0;
  if (n > 1) {
    for (; t0 + 4 <= n; t0 += 4) RunTokens<B, 4>(k, t0, in, s, w, stride, o_begin, o_end, y, ldy);
  }
  for (; t0 < n; ++t0) RunTokens<B, 1>(k, t0, in, s, w, stride, o_begin, o_end, y, ldy);
}

}  // namespace

void LinearLut4RIntAvx512Vnni(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<4>(k, n, in, s, w, o_begin, o_end, y, ldy);
}

void LinearLut2RIntAvx512Vnni(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<2>(k, n, in, s, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
