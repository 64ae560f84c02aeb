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
// Rows whose table is a line in the code, or a line plus remainders that fit a byte (tensor/lut_rows.h
// LutByteForm, precomputed in the row head: n[c] = a + b·c + u[c] - 128), skip VPERMW: Σ k·n[c] =
// (a - 128)·Σk + b·Σ k·c + Σ k·u[c], and both sums are VPDPBUSD over bytes against 64 int8
// activations laid out to match (registry.h LutIntActs bytes): the codes themselves, and for 4 bits
// the remainders looked up by VPSHUFB. 2-bit rows take it when the line is exact (every symmetric int2
// table: -2, -1, 0, 1 times bf16(s) round alike), the codes masked to one position h a vector (bytes
// c·4^h, one accumulator per h, shifted down by 2h at the end): 8 instructions per 256 weights where
// the table path takes 23. 4-bit rows (a bf16 rounding of q·s is within a few units of q·s) take
// it when the remainders fit: 9 instructions per 128 weights where the table path takes 12, and one
// shuffle per 64 weights instead of three. The sums are exact integers (below 2^31 per lane for rows
// up to 2^20 elements; longer ones take the table) and each row's result is one rounding of its exact
// integer. Which path a row takes is its own table's property, never its tile's, so every row's
// result is the same in every batch.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <cstddef>
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
      if (p % 2 == 0) PrefetchAt(c + ahead, T == 1 ? sp.level_ct : sp.level);  // one prefetch per row and cache line
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

// Whether row o takes the byte kernel: 2-bit rows whose table is a line, 4-bit rows whose remainders
// fit a byte (tensor/lut_rows.h LutByteForm); in past the int32 sums' bound takes the table.
template <int B>
inline bool ByteRow(const uint8_t* row, int64_t in) {
  const uint8_t flags = row[tensor::kLutFormOffset + offsetof(tensor::LutByteForm, flags)];
  return in <= (int64_t{1} << 20) &&
         (flags & (B == 2 ? tensor::LutByteForm::kLinear : tensor::LutByteForm::kResidual)) != 0;
}

// The byte kernels' sums for rows[r] against tokens t (registry.h LutIntActs byte order), chunk c of
// 64 code bytes (4 code groups; the last one masked to the row's bytes):
// - 2 bits: sc = Σ k·c: each code byte masked to code position h (bytes c·4^h) goes into accumulator
//   h, shifted down by 2h at the end; su = 0 (a linear table).
// - 4 bits: sc = Σ k·c over the two nibbles, su = Σ k·u[c] with u the row's remainder bytes looked up
//   by VPSHUFB (16 entries, one 128-bit lane's table, as a 4-bit code indexes).
// Every lane sums below 2^31 for rows up to 2^20 elements.
template <int B, int T, int R>
void TileBytes(const int8_t* kb, int64_t kbytes, int64_t in, const uint8_t* const* rows, int64_t* sc,
               int64_t* su) {
  constexpr int H = 8 / B, A = B == 2 ? 4 : 2;  // code positions; accumulators per (token, row)
  __m512i acc[T][R][A];
  __m512i utab[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    utab[r] = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
        rows[r] + tensor::kLutFormOffset + offsetof(tensor::LutByteForm, u))));
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
#pragma GCC unroll 4
      for (int h = 0; h < A; ++h) acc[t][r][h] = _mm512_setzero_si512();
    }
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, static_cast<int64_t>(tensor::LutRowBytes(B, in)));
  const int64_t code_bytes = in * B / 8, chunks = (code_bytes + 63) / 64;
  const __m512i nibble = _mm512_set1_epi8(0x0F);
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t left = code_bytes - 64 * c;
    const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    __m512i v[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = rows[r] + tensor::kLutHeadBytes + 64 * c;
      v[r] = _mm512_maskz_loadu_epi8(m, p);
      PrefetchAt(p + ahead, T == 1 ? sp.level_ct : sp.level);
    }
    if constexpr (B == 2) {
#pragma GCC unroll 4
      for (int h = 0; h < H; ++h) {
        const __m512i mask = _mm512_set1_epi8(static_cast<char>(3 << (2 * h)));
        __m512i cv[R];
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) cv[r] = _mm512_and_si512(v[r], mask);
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) {
          const __m512i kv = _mm512_loadu_si512(kb + t * kbytes + (H * c + h) * 64);
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) acc[t][r][h] = _mm512_dpbusd_epi32(acc[t][r][h], cv[r], kv);
        }
      }
    } else {
#pragma GCC unroll 2
      for (int h = 0; h < H; ++h) {
        __m512i cv[R], uv[R];
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          cv[r] = _mm512_and_si512(h == 0 ? v[r] : _mm512_srli_epi16(v[r], 4), nibble);
          uv[r] = _mm512_shuffle_epi8(utab[r], cv[r]);
        }
#pragma GCC unroll 4
        for (int t = 0; t < T; ++t) {
          const __m512i kv = _mm512_loadu_si512(kb + t * kbytes + (H * c + h) * 64);
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r) {
            acc[t][r][0] = _mm512_dpbusd_epi32(acc[t][r][0], cv[r], kv);
            acc[t][r][1] = _mm512_dpbusd_epi32(acc[t][r][1], uv[r], kv);
          }
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int t = 0; t < T; ++t) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      if constexpr (B == 2) {
        __m512i sum = acc[t][r][0];
#pragma GCC unroll 4
        for (int h = 1; h < 4; ++h) {
          sum = _mm512_add_epi32(sum, _mm512_srai_epi32(acc[t][r][h], static_cast<unsigned>(2 * h)));
        }
        sc[t * R + r] = _mm512_reduce_add_epi32(sum);
        su[t * R + r] = 0;
      } else {
        sc[t * R + r] = _mm512_reduce_add_epi32(acc[t][r][0]);
        su[t * R + r] = _mm512_reduce_add_epi32(acc[t][r][1]);
      }
    }
  }
}

// Rows o + r·step (r < R), each a byte row: Σ k·n[c] = (a - 128·[4 bits])·Σk + b·sc + su, exact in
// int64, then one rounding and the scale s · unit.
template <int B, int T, int R>
void RunTileBytes(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
                  int64_t o, int64_t step, float* y, int64_t ldy) {
  const uint8_t* rows[R];
  int32_t a[R], b[R];  // the line of each row (tensor::LutByteForm), read on their own
  float scale[R];
  for (int r = 0; r < R; ++r) {
    rows[r] = w + static_cast<size_t>(o + r * step) * stride;
    std::memcpy(&a[r], rows[r] + tensor::kLutFormOffset + offsetof(tensor::LutByteForm, a), sizeof(a[r]));
    std::memcpy(&b[r], rows[r] + tensor::kLutFormOffset + offsetof(tensor::LutByteForm, b), sizeof(b[r]));
    float unit;
    std::memcpy(&unit, rows[r] + tensor::kLutUnitOffset, sizeof(unit));
    scale[r] = s * unit;
  }
  const int64_t kbytes = LutIntBytes(in, B);
  int64_t sc[T * R], su[T * R];
  TileBytes<B, T, R>(k.bytes + t0 * kbytes, kbytes, in, rows, sc, su);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      const int64_t line = int64_t{a[r]} - (B == 4 ? 128 : 0);
      const int64_t total = line * k.sums[t0 + t] + int64_t{b[r]} * sc[t * R + r] + su[t * R + r];
      y[(t0 + t) * ldy + o + r * step] = static_cast<float>(total) * scale[r];
    }
  }
}

template <int B, int T>
void RunTokens(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
               int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t words = LutIntWords(in, B);
  constexpr int R = T == 1 ? 4 : 2;
  // Each row by its own table (never by its tile's company, so results are batch-invariant): byte rows
  // through TileBytes, the rest through the table.
  const auto byte_row = [&](int64_t o) { return ByteRow<B>(w + static_cast<size_t>(o) * stride, in); };
  const auto one = [&](int64_t o) {
    if (byte_row(o)) {
      RunTileBytes<B, T, 1>(k, t0, in, s, w, stride, o, 1, y, ldy);
    } else {
      RunTile<B, T, 1>(k.words, words, t0, in, s, w, stride, o, 1, y, ldy);
    }
  };
  // A lone token reads four sequential streams (QuarterStreams).
  const auto full = [&](int64_t o, int64_t step) {
    bool bytes = true, table = true;
    for (int r = 0; r < R; ++r) {
      const bool b = byte_row(o + r * step);
      bytes = bytes && b;
      table = table && !b;
    }
    if (bytes) {
      // 2-bit byte tiles keep four accumulators per (token, row): one row at a time against 4 tokens.
      constexpr int RB = B == 2 && T > 1 ? 1 : R;
      for (int r = 0; r < R; r += RB) RunTileBytes<B, T, RB>(k, t0, in, s, w, stride, o + r * step, step, y, ldy);
    } else if (table) {
      RunTile<B, T, R>(k.words, words, t0, in, s, w, stride, o, step, y, ldy);
    } else {
      for (int r = 0; r < R; ++r) one(o + r * step);
    }
  };
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

template <int B>
void LinearLutInt(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                  int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::LutRowBytes(B, in);
  TokenGroups(
      n, [&](int64_t t0) { RunTokens<B, 4>(k, t0, in, s, w, stride, o_begin, o_end, y, ldy); },
      [&](int64_t t0) { RunTokens<B, 1>(k, t0, in, s, w, stride, o_begin, o_end, y, ldy); });
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
