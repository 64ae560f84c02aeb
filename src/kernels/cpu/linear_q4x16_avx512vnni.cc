// AVX-512 VNNI kQ4_0x16 Linear (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq
// -mavx512vnni -mfma -mf16c). Rows are stored in groups of 16 (tensor/quant_blocks.h
// BlockQ4_0x16): block b of a group is 16 f16 scales and four 64-byte registers whose lane l
// holds four bytes of row l. So a register's nibbles, split, are eight VPDPBUSD operands whose
// lane l multiplies row l by four activations every lane shares: each int32 lane ends a block
// holding the exact Σ (q4 - 8)·x of its row's block (the -8·Σx start broadcast from the token
// side), with no lane reduction. One convert, one product d_w·d_x (the token's scale broadcast)
// and one FMA per 16 rows and block; each token pays 8 VPDPBUSD + 3 per 512 weights, against
// the row-pair layout's 8 + 9 lane-reduction steps + 3. Every (token, row) output is one chain of
// FMAs over the blocks in order, the same in every tile and range: results are batch- and
// range-invariant. Tiles: N = 1..8 tokens × one group (the group's split nibbles shared by its
// tokens), and a lone token × 2 or 4 groups side by side (LoneTile), run by q4x16_driver.h. Include
// no header with inline code here beyond intrinsics, the registry's declarations and the
// internal-linkage helpers for ISA files (q4x16_driver.h). GCC 12 reports the AVX-512 intrinsics'
// undefined pass-through operands as uninitialised (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/registry.h"
#include "kernels/cpu/q4x16_driver.h"

namespace gemmad::kernels {
namespace {

constexpr int kMaxTileTokens = 8;

// acc + w · (the four int8 activations at x, broadcast to every lane): VPDPBUSD with the
// activations as its embedded-broadcast memory operand (GCC does not fold a broadcast there).
inline __m512i DotBroadcast(__m512i acc, __m512i w, const int8_t* x) {
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(w), "m"(*reinterpret_cast<const int32_t*>(x)));
  return acc;
}

// The token side: -8·Σx per token and block (the nibbles' over-count), out[t * nb + b].
void PrepareBias(const int8_t* q, int64_t n, int64_t in, int32_t* out) {
  const int64_t nb = in / kBlock;
  const __m256i eight = _mm256_set1_epi8(8);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t b = 0; b < nb; ++b) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + t * in + b * kBlock));
      const __m256i s = _mm256_dpbusd_epi32(_mm256_setzero_si256(), eight, x);
      const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
      const __m128i h2 = _mm_add_epi32(h, _mm_unpackhi_epi64(h, h));
      out[t * nb + b] = -(_mm_cvtsi128_si32(h2) + _mm_extract_epi32(h2, 1));
    }
  }
}

// N tokens × the 16 rows of one group (`g`: its first block); out[t * 16 + l] = token t · row l.
template <int N>
void Tile(int64_t nb, const int8_t* q, int64_t in, const float* d, const int32_t* bias, const uint8_t* g,
          int64_t ahead, PrefetchLevel level, float* out) {
  __m512 acc[N];
  for (int t = 0; t < N; ++t) acc[t] = _mm512_setzero_ps();
  const __m512i m = _mm512_set1_epi8(15);
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = g + b * kGroupBlockBytes;
    PrefetchBlock(blk, ahead, level);
    const __m512 ws = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
    __m512i w[8];
    for (int j = 0; j < 4; ++j) {
      const __m512i v = _mm512_loadu_si512(blk + 32 + 64 * j);
      w[j] = _mm512_and_si512(v, m);                          // elements 4j..4j+3
      w[j + 4] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);  // elements 16+4j..16+4j+3
    }
#pragma GCC unroll 8
    for (int t = 0; t < N; ++t) {
      const int8_t* x = q + t * in + b * kBlock;
      // Two chains of four (four of two for a few tokens, whose chains are all there is to overlap).
      constexpr int kChains = N <= 3 ? 4 : 2;
      __m512i a[kChains];
      a[0] = _mm512_set1_epi32(bias[t * nb + b]);
      for (int c = 1; c < kChains; ++c) a[c] = _mm512_setzero_si512();
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) a[k % kChains] = DotBroadcast(a[k % kChains], w[k], x + 4 * k);
      if constexpr (kChains == 4) {
        a[0] = _mm512_add_epi32(a[0], a[2]);
        a[1] = _mm512_add_epi32(a[1], a[3]);
      }
      acc[t] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(a[0], a[1])),
                               _mm512_mul_ps(ws, _mm512_set1_ps(d[t * nb + b])), acc[t]);
    }
  }
  for (int t = 0; t < N; ++t) _mm512_storeu_ps(out + t * kGroupRows, acc[t]);
}

// One token × G groups side by side (the first group's first block at `g`, the next ones `stride`
// bytes apart): G row streams in flight instead of one. out[i * 16 + l] = row l of group i; each row
// takes Tile<1>'s steps (exact integer block sums, then the same convert, product and FMA per block
// in order), so the same bits.
template <int G>
void LoneTile(int64_t nb, const int8_t* x0, const float* d, const int32_t* bias, const uint8_t* g, int64_t stride,
              int64_t ahead, PrefetchLevel level, float* out) {
  __m512 acc[G];
  for (int i = 0; i < G; ++i) acc[i] = _mm512_setzero_ps();
  const __m512i m = _mm512_set1_epi8(15);
  for (int64_t b = 0; b < nb; ++b) {
    const int8_t* x = x0 + b * kBlock;
    const __m512 dx = _mm512_set1_ps(d[b]);
    const __m512i start = _mm512_set1_epi32(bias[b]);
#pragma GCC unroll 4
    for (int i = 0; i < G; ++i) {
      const uint8_t* blk = g + i * stride + b * kGroupBlockBytes;
      PrefetchBlock(blk, ahead, level);
      const __m512 ws = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
      __m512i a[4] = {start, _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m512i v = _mm512_loadu_si512(blk + 32 + 64 * j);
        a[j] = DotBroadcast(a[j], _mm512_and_si512(v, m), x + 4 * j);                              // 4j..4j+3
        a[j] = DotBroadcast(a[j], _mm512_and_si512(_mm512_srli_epi16(v, 4), m), x + 16 + 4 * j);  // 16+4j..
      }
      const __m512i sum = _mm512_add_epi32(_mm512_add_epi32(a[0], a[2]), _mm512_add_epi32(a[1], a[3]));
      acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(ws, dx), acc[i]);
    }
  }
  for (int i = 0; i < G; ++i) _mm512_storeu_ps(out + i * kGroupRows, acc[i]);
}
constexpr Q4x16LoneFn kLoneTiles[] = {&LoneTile<2>, &LoneTile<4>};  // 2 and 4 groups

template <size_t... I>
constexpr std::array<Q4x16TileFn, sizeof...(I)> MakeTiles(std::index_sequence<I...>) {
  return {&Tile<static_cast<int>(I) + 1>...};
}
constexpr auto kTiles = MakeTiles(std::make_index_sequence<kMaxTileTokens>());  // kTiles[g - 1]: g tokens

}  // namespace

void LinearQ4_0x16Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                             int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  RunQ4x16<kMaxTileTokens>(&LinearQ4_0x16Avx512Vnni, kTiles.data(), kLoneTiles, &PrepareBias, q, d, n, in, w, out,
                           o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
