// FP8 Linear with AVX512-BF16 dot products (kernels/registry.h LinearF8Fn; the avx512 table uses it
// where the CPU has AVX512_BF16 and AVX512_VBMI, linear_fp8_avx512.cc otherwise). Every E4M3 value is
// exact in bf16 (4 significant bits, exponents 2^-9..2^8), and so is every activation the caller
// quantized to E4M3, so VDPBF16PS multiplies them exactly, two products per fp32 lane, 32 weights per
// instruction. 64 codes become bf16 in five operations: two VPERMI2B lookups of the magnitude
// (128-entry tables of the high and low bf16 byte), the sign OR-ed into the high byte, and two byte
// interleaves, which give the words of elements 16L+k (k < 8) and 16L+8+k of each 128-bit lane L;
// the activations are laid out once per call in the same order (zero-padded to a multiple of 64),
// so the weights' side is all that a row pays. NaN codes (0x7F, 0xFF; never in a checkpoint) read as
// ±480, as in the other FP8 kernels. Tiles of T tokens x R rows share each decoded chunk and each
// activation load: 1 x 4 rows at batch 1 (four independent row streams, prefetched ahead as the other
// batch-1 kernels do; 1 x 8 for long rows where the table says so, LongRowStreams), 4 x 2 above,
// over blocks of rows that stay in L2 while all the tokens read them.
// Every (token, row) sums the same products in two accumulators (even and odd word groups) in the same
// order, then adds them and reduces once, whatever the tile: results are batch- and range-invariant.
// The sums' order differs from the fp32 kernels' (pairs of products per instruction), within the
// parity suite's fp32-order tolerance.
#include <immintrin.h>

// GCC 12 warns on the AVX-512 intrinsics' internal _mm512_undefined_* (a known false positive,
// GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kChunk = 64;

// Whether a lone token reads rows of `in` codes as eight streams with the software prefetch of the
// other tiles (`level`) instead of four with `level_ct`: where the table asks for eight streams on
// long rows (AMD Zen) and the row is at least 3/4 of long_row_bytes. One thread on Zen 4, cold,
// GB/s (docs/cpu-performance.md §27): rows of 6 KB 21-22 -> 27-28, 12 KB 21-22 -> 28-29; rows of
// 4 KB lost (30 -> 25-29) and stay on four.
bool LongRowStreams(const StreamParams& sp, int64_t in) {
  return sp.long_row_streams == 8 && in * 4 >= sp.long_row_bytes * 3;
}

// The high and low bytes of the bf16 of E4M3 codes 0..127 (positive magnitudes), as two pairs of
// 64-byte VPERMI2B tables.
struct Tables {
  __m512i hi0, hi1, lo0, lo1;
};
const Tables& Bf16Tables() {
  static const Tables t = [] {
    alignas(64) uint8_t hi[128], lo[128];
    for (int c = 0; c < 128; ++c) {
      const int e = c >> 3, m = c & 7;
      // 0x7F is NaN in E4M3; read it as 480 (exponent 15, mantissa 7), like the other kernels.
      const float v =
          e == 0 ? static_cast<float>(m) * 0x1p-9f : static_cast<float>((8 + m) << e) * 0x1p-10f;
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof(bits));
      hi[c] = static_cast<uint8_t>(bits >> 24);
      lo[c] = static_cast<uint8_t>(bits >> 16);
    }
    Tables r;
    r.hi0 = _mm512_load_si512(hi);
    r.hi1 = _mm512_load_si512(hi + 64);
    r.lo0 = _mm512_load_si512(lo);
    r.lo1 = _mm512_load_si512(lo + 64);
    return r;
  }();
  return t;
}

// 64 codes (fewer at the tail: zeros above) -> their bf16 words, elements 16L+k and 16L+8+k.
inline void Decode64(const Tables& tb, const uint8_t* p, int64_t left, __m512i* a, __m512i* b) {
  const __m512i v = left >= kChunk ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8((1ull << left) - 1ull, p);
  const __m512i hi = _mm512_ternarylogic_epi32(_mm512_permutex2var_epi8(tb.hi0, v, tb.hi1), v,
                                               _mm512_set1_epi8(static_cast<char>(0x80)), 0xF8);  // a | (b & c)
  const __m512i lo = _mm512_permutex2var_epi8(tb.lo0, v, tb.lo1);
  *a = _mm512_unpacklo_epi8(lo, hi);
  *b = _mm512_unpackhi_epi8(lo, hi);
}

// One chunk of one token's activations as bf16 in Decode64's order (words a, then b).
struct XChunk {
  __m512i a, b;
};

// Token t's chunk c: out[t * chunks + c].
void PrepareX(const float* xq, int64_t n, int64_t in, int64_t chunks, XChunk* out) {
  // Words of a chunk's natural order [0..31 | 32..63] -> [16L+k | 16L+8+k] (L < 4, k < 8).
  alignas(64) int16_t ia[32], ib[32];
  for (int j = 0; j < 32; ++j) {
    ia[j] = static_cast<int16_t>(16 * (j / 8) + j % 8);
    ib[j] = static_cast<int16_t>(16 * (j / 8) + 8 + j % 8);
  }
  const __m512i pa = _mm512_load_si512(ia), pb = _mm512_load_si512(ib);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t i = c * kChunk, left = in - i;
      const float* p = xq + t * in + i;
      const auto mask = [&](int64_t from) {
        const int64_t k = left - from;
        return static_cast<__mmask16>(k >= 16 ? 0xFFFF : k <= 0 ? 0 : (1u << k) - 1u);
      };
      __m512 f[4];
      for (int q = 0; q < 4; ++q) f[q] = _mm512_maskz_loadu_ps(mask(16 * q), p + 16 * q);
      // cvtne2ps puts its second operand in the low words.
      const __m512i x0 = (__m512i)_mm512_cvtne2ps_pbh(f[1], f[0]);
      const __m512i x1 = (__m512i)_mm512_cvtne2ps_pbh(f[3], f[2]);
      out[t * chunks + c] = {_mm512_permutex2var_epi16(x0, pa, x1), _mm512_permutex2var_epi16(x0, pb, x1)};
    }
  }
}

// out[t * R + r] = Σ_i xq[t, i] · e4m3(rows[r][i]); px: the tile's first token's prepared chunks.
template <int T, int R>
void Tile(const XChunk* px, int64_t chunks, int64_t in, const uint8_t* const* rows, float* out) {
  const Tables& tb = Bf16Tables();
  __m512 acc_a[T][R], acc_b[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc_a[t][r] = acc_b[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, in + 4);
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t i = c * kChunk;
    if constexpr (T == 1 && R == 8) {
      // Eight rows of one token: each row's chunk is decoded and used at once (eight rows' decoded
      // words would not fit the registers beside their accumulators).
      const __m512bh xa = (__m512bh)px[c].a, xb = (__m512bh)px[c].b;
      for (int r = 0; r < R; ++r) {
        __m512i wa, wb;
        Decode64(tb, rows[r] + i, in - i, &wa, &wb);
        PrefetchAt(rows[r] + i + ahead, sp.level);
        acc_a[0][r] = _mm512_dpbf16_ps(acc_a[0][r], xa, (__m512bh)wa);
        acc_b[0][r] = _mm512_dpbf16_ps(acc_b[0][r], xb, (__m512bh)wb);
      }
      continue;
    }
    __m512i wa[R], wb[R];
    for (int r = 0; r < R; ++r) {
      Decode64(tb, rows[r] + i, in - i, &wa[r], &wb[r]);
      PrefetchAt(rows[r] + i + ahead, T == 1 ? sp.level_ct : sp.level);
    }
    for (int t = 0; t < T; ++t) {
      const __m512bh xa = (__m512bh)px[t * chunks + c].a, xb = (__m512bh)px[t * chunks + c].b;
      for (int r = 0; r < R; ++r) {
        acc_a[t][r] = _mm512_dpbf16_ps(acc_a[t][r], xa, (__m512bh)wa[r]);
        acc_b[t][r] = _mm512_dpbf16_ps(acc_b[t][r], xb, (__m512bh)wb[r]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) out[t * R + r] = _mm512_reduce_add_ps(_mm512_add_ps(acc_a[t][r], acc_b[t][r]));
  }
}

inline float RowScale(const uint8_t* row) {
  float d;
  std::memcpy(&d, row, sizeof(float));
  return d;
}

template <int T, int R>
void RunTile(const XChunk* px, int64_t chunks, const float* s, int64_t t0, int64_t in, const uint8_t* w,
             size_t stride, int64_t o, int64_t step, float* y, int64_t ldy) {
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = w + static_cast<size_t>(o + r * step) * stride + sizeof(float);
  float out[T * R];
  Tile<T, R>(px + t0 * chunks, chunks, in, rows, out);
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) {
      y[(t0 + t) * ldy + o + r * step] = out[t * R + r] * RowScale(rows[r] - sizeof(float)) * s[t0 + t];
    }
  }
}

template <int T>
void RunTokens(const XChunk* px, int64_t chunks, const float* s, int64_t t0, int64_t in, const uint8_t* w,
               size_t stride, int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  constexpr int R = T == 1 ? 4 : 2;
  // A lone token reads four sequential streams (QuarterStreams); which rows share a tile changes no result.
  const auto full = [&](int64_t o, int64_t step) {
    RunTile<T, R>(px, chunks, s, t0, in, w, stride, o, step, y, ldy);
  };
  const auto one = [&](int64_t o) { RunTile<T, 1>(px, chunks, s, t0, in, w, stride, o, 1, y, ldy); };
  if constexpr (T == 1) {
    if (LongRowStreams(ActiveStreamParams(), in)) {
      const auto full8 = [&](int64_t o, int64_t step) {
        RunTile<1, 8>(px, chunks, s, t0, in, w, stride, o, step, y, ldy);
      };
      RowTiles<8>(true, o_begin, o_end, full8, one);
      return;
    }
  }
  RowTiles<R>(T == 1, o_begin, o_end, full, one);
}

}  // namespace

void LinearF8RAvx512Bf16(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                         int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::RowBytes(tensor::DType::kF8R, in);
  const int64_t chunks = (in + kChunk - 1) / kChunk;
  // The prepared activations are 2 bytes per element (a 512-token prefill of a 12288-wide input:
  // 12 MiB): passes of at most 64 tokens keep the scratch small.
  constexpr int64_t kPass = 64;
  thread_local std::vector<XChunk> prepared;
  for (int64_t p0 = 0; p0 < n; p0 += kPass) {
    const int64_t np = n - p0 < kPass ? n - p0 : kPass;
    const size_t need = static_cast<size_t>(np * chunks);
    if (prepared.size() < need) prepared.resize(need);
    PrepareX(xq + p0 * in, np, in, chunks, prepared.data());
    const float* sp = s + p0;
    float* yp = y + p0 * ldy;
    if (np == 1) {
      RunTokens<1>(prepared.data(), chunks, sp, 0, in, w, stride, o_begin, o_end, yp, ldy);
      continue;
    }
    // Blocks of rows that stay in L2 while every token group of the pass reads them, so the weights
    // stream from memory once a pass, not once per four tokens.
    const int64_t block = std::max<int64_t>(4, static_cast<int64_t>((size_t{128} << 10) / stride) & ~int64_t{3});
    for (int64_t ob = o_begin; ob < o_end; ob += block) {
      const int64_t oe = std::min(ob + block, o_end);
      int64_t t0 = 0;
      for (; t0 + 4 <= np; t0 += 4) RunTokens<4>(prepared.data(), chunks, sp, t0, in, w, stride, ob, oe, yp, ldy);
      for (; t0 < np; ++t0) RunTokens<1>(prepared.data(), chunks, sp, t0, in, w, stride, ob, oe, yp, ldy);
    }
  }
}

}  // namespace gemmad::kernels
