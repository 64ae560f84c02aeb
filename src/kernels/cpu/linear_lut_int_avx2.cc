// Table rows (tensor/lut_rows.h kLut4R / kLut2R) meeting int8 activations, AVX2 (kernels/registry.h
// LinearLutIntFn; kernels/ops.h LinearStaticInt8): the mobile QAT code tables on CPUs without
// AVX-512 VNNI, which otherwise fake-quantize the input and look every weight up as a float.
//
// Rows whose table is a line in the code, or a line plus narrow remainders (tensor/lut_rows.h
// LutByteForm: n[c] = a + b·c + u[c] - 128), multiply the code bytes themselves:
// Σ k·n[c] = (a - 128·[4 bits] + u_min)·Σk + b·Σ k·c + Σ k·(u[c] - u_min), both sums by VPMADDUBSW
// (unsigned code or remainder bytes against the activations' int8 bytes, registry.h LutIntActs byte
// order), whose 16-bit pair sums cannot saturate: a code (shifted down to 0..3 or 0..15) or a
// remainder less u_min (below 32: kNarrow) times |k| <= 128, a pair at most 2 · 31 · 128 = 7,936;
// per 32 code bytes a 16-bit lane adds two such (4 bits) or four of at most 768 (2 bits) before
// VPMADDWD widens it into int32. Per 32 code bytes and row, 2 bits: 3 shifts, 4 masks, 4 VPMADDUBSW;
// 4 bits: 1 shift, 2 masks, 2 VPSHUFB for the remainders, 4 VPMADDUBSW. Every row whose table is not
// of that form (a 2-bit table that is not a line, 4-bit remainders wider than 31, rows past 2^20
// elements) sums its table entries one element at a time, in int64. Every sum is the exact integer,
// rounded once and scaled by s · unit, so each row's result is the same in every batch and tile, and
// equal to the avx512 table's VNNI kernel wherever that kernel takes its byte path (the same integer,
// the same rounding).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

// The sum of eight int32 lanes, in int64.
inline int64_t SumLanes(__m256i v) {
  const __m256i w = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)),
                                     _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)));
  const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  return _mm_cvtsi128_si64(s) + _mm_extract_epi64(s, 1);
}

// One row's byte form, read once a tile.
struct ByteRow {
  const uint8_t* codes = nullptr;
  int64_t line = 0;  // multiplies Σk: a - 128·[4 bits] + u_min
  int64_t b = 0;     // multiplies Σ k·c
  float scale = 0;   // s · unit
};

// The head's fields read in place (a copy of the whole LutByteForm costs a zeroing and a store-forward
// stall per row).
template <typename V>
inline V HeadField(const uint8_t* row, size_t offset) {
  V v;
  std::memcpy(&v, row + tensor::kLutFormOffset + offset, sizeof(v));
  return v;
}

inline ByteRow ReadByteRow(const uint8_t* row, int bits, float s) {
  using tensor::LutByteForm;
  const auto a = HeadField<int32_t>(row, offsetof(LutByteForm, a));
  const auto b = HeadField<int32_t>(row, offsetof(LutByteForm, b));
  const auto u_min = HeadField<uint8_t>(row, offsetof(LutByteForm, u_min));
  float unit;
  std::memcpy(&unit, row + tensor::kLutUnitOffset, sizeof(unit));
  return {row + tensor::kLutHeadBytes, int64_t{a} - (bits == 4 ? 128 - int64_t{u_min} : 0), int64_t{b}, s * unit};
}

// Whether row takes the byte kernel: a 2-bit line, or 4-bit narrow remainders; in past 2^20 elements
// (the int32 lanes' bound) takes the element sum.
template <int B>
inline bool IsByteRow(const uint8_t* row, int64_t in) {
  const uint8_t flags = row[tensor::kLutFormOffset + offsetof(tensor::LutByteForm, flags)];
  return in <= (int64_t{1} << 20) && (flags & (B == 2 ? tensor::LutByteForm::kLinear : tensor::LutByteForm::kNarrow));
}

// The remainders less u_min (below 32) as a VPSHUFB table in both 128-bit lanes.
inline __m256i NarrowTable(const uint8_t* row) {
  using tensor::LutByteForm;
  const uint8_t* u_at = row + tensor::kLutFormOffset + offsetof(LutByteForm, u);
  const __m128i u = _mm_loadu_si128(reinterpret_cast<const __m128i*>(u_at));
  return _mm256_broadcastsi128_si256(
      _mm_sub_epi8(u, _mm_set1_epi8(static_cast<char>(HeadField<uint8_t>(row, offsetof(LutByteForm, u_min))))));
}

// The code bytes of rows[r] from byte 32·q on (16 zero-extended where the row ends there).
inline __m256i LoadCodes(const uint8_t* p, bool full) {
  return full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
              : _mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// sc[t·R + r] = Σ k·c and su[t·R + r] = Σ k·(u[c] - u_min) (4 bits; 0 for 2 bits) for rows[r] against
// tokens t (registry.h LutIntActs bytes: chunk c of 64 code bytes, position h, 64 activation bytes
// matching the code bytes).
template <int B, int T, int R>
void TileBytes(const int8_t* kb, int64_t kbytes, int64_t in, const ByteRow* rows, const __m256i* utab, int64_t* sc,
               int64_t* su) {
  constexpr int H = 8 / B;
  __m256i accc[T][R], accu[T][R];
#pragma GCC unroll 4
  for (int t = 0; t < T; ++t) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) accc[t][r] = accu[t][r] = _mm256_setzero_si256();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t code_bytes = in * B / 8, units = (code_bytes + 31) / 32;
  const int64_t ahead = AheadBytes(sp, static_cast<int64_t>(tensor::LutRowBytes(B, in)));
  const __m256i low = _mm256_set1_epi8(B == 2 ? 3 : 15), ones = _mm256_set1_epi16(1);
  for (int64_t q = 0; q < units; ++q) {
    const bool full = 32 * q + 32 <= code_bytes;
    const int8_t* kq = kb + (q / 2) * H * 64 + 32 * (q % 2);  // position h at kq + 64·h
    __m256i v[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const uint8_t* p = rows[r].codes + 32 * q;
      v[r] = LoadCodes(p, full);
      if (q % 2 == 0) PrefetchAt(p + ahead, T == 1 ? sp.level_ct : sp.level);
    }
    __m256i c16[T][R], u16[T][R];
#pragma GCC unroll 4
    for (int h = 0; h < H; ++h) {
      __m256i cv[R], uv[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        cv[r] = _mm256_and_si256(h == 0 ? v[r] : _mm256_srli_epi16(v[r], B * h), low);
        if constexpr (B == 4) uv[r] = _mm256_shuffle_epi8(utab[r], cv[r]);
      }
#pragma GCC unroll 4
      for (int t = 0; t < T; ++t) {
        const __m256i kv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kq + t * kbytes + 64 * h));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const __m256i pc = _mm256_maddubs_epi16(cv[r], kv);
          c16[t][r] = h == 0 ? pc : _mm256_add_epi16(c16[t][r], pc);
          if constexpr (B == 4) {
            const __m256i pu = _mm256_maddubs_epi16(uv[r], kv);
            u16[t][r] = h == 0 ? pu : _mm256_add_epi16(u16[t][r], pu);
          }
        }
      }
    }
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        accc[t][r] = _mm256_add_epi32(accc[t][r], _mm256_madd_epi16(c16[t][r], ones));
        if constexpr (B == 4) accu[t][r] = _mm256_add_epi32(accu[t][r], _mm256_madd_epi16(u16[t][r], ones));
      }
    }
  }
#pragma GCC unroll 4
  for (int t = 0; t < T; ++t) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      sc[t * R + r] = SumLanes(accc[t][r]);
      su[t * R + r] = B == 4 ? SumLanes(accu[t][r]) : 0;
    }
  }
}

// Rows o + r·step (r < R), every one a byte row, against tokens t0 .. t0 + T.
template <int B, int T, int R>
void RunTileBytes(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride, int64_t o,
                  int64_t step, float* y, int64_t ldy) {
  ByteRow rows[R];
  __m256i utab[R];
  for (int r = 0; r < R; ++r) {
    const uint8_t* row = w + static_cast<size_t>(o + r * step) * stride;
    rows[r] = ReadByteRow(row, B, s);
    utab[r] = B == 4 ? NarrowTable(row) : _mm256_setzero_si256();
  }
  const int64_t kbytes = LutIntBytes(in, B);
  int64_t sc[T * R], su[T * R];
  TileBytes<B, T, R>(k.bytes + t0 * kbytes, kbytes, in, rows, utab, sc, su);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      const int64_t total = rows[r].line * k.sums[t0 + t] + rows[r].b * sc[t * R + r] + su[t * R + r];
      y[(t0 + t) * ldy + o + r * step] = static_cast<float>(total) * rows[r].scale;
    }
  }
}

// Row o against token t by its table, element by element in int64 (LutIntActs bytes: the code of
// activation byte 64·(H·c + h) + i is bits B·h of code byte 64·c + i).
template <int B>
void RunRowTable(const LutIntActs& k, int64_t t, int64_t in, float s, const uint8_t* w, size_t stride, int64_t o,
                 float* y, int64_t ldy) {
  constexpr int H = 8 / B;
  const uint8_t* row = w + static_cast<size_t>(o) * stride;
  int16_t n[tensor::kLutEntries];
  std::memcpy(n, row, sizeof(n));
  float unit;
  std::memcpy(&unit, row + tensor::kLutUnitOffset, sizeof(unit));
  const int64_t kbytes = LutIntBytes(in, B), code_bytes = in * B / 8;
  const int8_t* kb = k.bytes + t * kbytes;
  const uint8_t* codes = row + tensor::kLutHeadBytes;
  int64_t total = 0;
  for (int64_t i = 0; i < code_bytes; ++i) {
    const int64_t c = i / 64, j = i % 64;
    for (int h = 0; h < H; ++h) {
      total += int64_t{kb[(H * c + h) * 64 + j]} * n[(codes[i] >> (B * h)) & ((1 << B) - 1)];
    }
  }
  y[t * ldy + o] = static_cast<float>(total) * (s * unit);
}

template <int B, int T>
void RunTokens(const LutIntActs& k, int64_t t0, int64_t in, float s, const uint8_t* w, size_t stride,
               int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 1;
  const auto byte_row = [&](int64_t o) { return IsByteRow<B>(w + static_cast<size_t>(o) * stride, in); };
  const auto one = [&](int64_t o) {
    if (byte_row(o)) {
      RunTileBytes<B, T, 1>(k, t0, in, s, w, stride, o, 1, y, ldy);
    } else {
      for (int64_t t = t0; t < t0 + T; ++t) RunRowTable<B>(k, t, in, s, w, stride, o, y, ldy);
    }
  };
  // A lone token reads four rows a pass, one from each quarter (RowTiles).
  const auto full = [&](int64_t o, int64_t step) {
    bool bytes = true;
    for (int r = 0; r < R; ++r) bytes = bytes && byte_row(o + r * step);
    if (bytes) {
      RunTileBytes<B, T, R>(k, t0, in, s, w, stride, o, step, y, ldy);
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

void LinearLut4RIntAvx2(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                        int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<4>(k, n, in, s, w, o_begin, o_end, y, ldy);
}

void LinearLut2RIntAvx2(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                        int64_t o_end, float* y, int64_t ldy) {
  LinearLutInt<2>(k, n, in, s, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
