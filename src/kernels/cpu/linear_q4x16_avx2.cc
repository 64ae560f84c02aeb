// AVX2 kQ4_0x16 Linear (compiled with -mavx2 -mfma -mf16c): the layout of
// linear_q4x16_avx512vnni.cc (tensor/quant_blocks.h BlockQ4_0x16: 16 f16 scales, then four 64-byte
// registers whose 32-bit lane l holds four bytes of row l) for CPUs without AVX-512, where a group of
// 16 rows is also one sequential stream instead of the row-pair layout's eight. Each 64-byte register
// is two 32-byte halves (rows 0-7, rows 8-15); its nibbles, split, are eight VPMADDUBSW operands
// whose 16-bit lanes multiply two nibbles (0..15) of a row by two activations every row shares
// (four broadcast per 32-bit lane). The eight products of a block add in 16 bits (at most
// 8 · 2 · 15 · 128 = 30720, no saturation or wrap), one VPMADDWD sums each row's pair of lanes into
// int32: the exact Σ q·x of the row's block, to which the -8·Σx over-count of the unsigned nibbles is
// added. Then, per row, the steps of the AVX-512 kernel: one convert, the product d_w·d_x and one
// FMA per block in order, so every (token, row) output is the same float as there, in every tile
// and range (batch- and range-invariant). Tiles: 1..4 tokens × one group, and a lone token × 2 or 4
// groups side by side (LoneTile), run by q4x16_driver.h. Include no header with inline code beyond
// intrinsics, the registry's declarations and the internal-linkage helpers for ISA files
// (q4x16_driver.h, stream_prefetch.h).
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/q4x16_driver.h"
#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

constexpr int kMaxTileTokens = 4;          // 16 ymm registers: 8 split nibbles, the tile's accumulators

// The token side: -8·Σx per token and block (the nibbles' over-count), out[t * nb + b].
void PrepareBias(const int8_t* q, int64_t n, int64_t in, int32_t* out) {
  const int64_t nb = in / kBlock;
  const __m256i eight = _mm256_set1_epi8(8), ones = _mm256_set1_epi16(1);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t b = 0; b < nb; ++b) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + t * in + b * kBlock));
      const __m256i s = _mm256_madd_epi16(_mm256_maddubs_epi16(eight, x), ones);
      const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
      const __m128i h2 = _mm_add_epi32(h, _mm_unpackhi_epi64(h, h));
      out[t * nb + b] = -(_mm_cvtsi128_si32(h2) + _mm_extract_epi32(h2, 1));
    }
  }
}

// The four activations at x broadcast to every 32-bit lane.
inline __m256i Broadcast4(const int8_t* x) {
  int32_t v;
  std::memcpy(&v, x, sizeof(v));
  return _mm256_set1_epi32(v);
}

// N tokens × the 16 rows of one group (`g`: its first block); out[t * 16 + l] = token t · row l.
template <int N>
void Tile(int64_t nb, const int8_t* q, int64_t in, const float* d, const int32_t* bias, const uint8_t* g,
          int64_t ahead, PrefetchLevel level, float* out) {
  __m256 acc[N][2];
  for (int t = 0; t < N; ++t) acc[t][0] = acc[t][1] = _mm256_setzero_ps();
  const __m256i m = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = g + b * kGroupBlockBytes;
    PrefetchBlock(blk, ahead, level);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {  // rows 8h..8h+7
      const __m256 ws = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16 * h)));
      __m256i w[8];
      for (int j = 0; j < 4; ++j) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 + 64 * j + 32 * h));
        w[j] = _mm256_and_si256(v, m);                          // elements 4j..4j+3
        w[j + 4] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);  // elements 16+4j..16+4j+3
      }
#pragma GCC unroll 4
      for (int t = 0; t < N; ++t) {
        const int8_t* x = q + t * in + b * kBlock;
        __m256i s = _mm256_maddubs_epi16(w[0], Broadcast4(x));
#pragma GCC unroll 8
        for (int k = 1; k < 8; ++k) s = _mm256_add_epi16(s, _mm256_maddubs_epi16(w[k], Broadcast4(x + 4 * k)));
        const __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(s, ones), _mm256_set1_epi32(bias[t * nb + b]));
        acc[t][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(ws, _mm256_set1_ps(d[t * nb + b])),
                                    acc[t][h]);
      }
    }
  }
  for (int t = 0; t < N; ++t) {
    _mm256_storeu_ps(out + t * kGroupRows, acc[t][0]);
    _mm256_storeu_ps(out + t * kGroupRows + 8, acc[t][1]);
  }
}

// One token × G groups side by side (the first group's first block at `g`, the next ones `stride`
// bytes apart): G row streams in flight instead of one. out[i * 16 + l] = row l of group i; each row
// takes Tile<1>'s steps, so the same bits.
template <int G>
void LoneTile(int64_t nb, const int8_t* x0, const float* d, const int32_t* bias, const uint8_t* g, int64_t stride,
              int64_t ahead, PrefetchLevel level, float* out) {
  __m256 acc[G][2];
  for (int i = 0; i < G; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  const __m256i m = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
  for (int64_t b = 0; b < nb; ++b) {
    const int8_t* x = x0 + b * kBlock;
    const __m256 dx = _mm256_set1_ps(d[b]);
    const __m256i start = _mm256_set1_epi32(bias[b]);
#pragma GCC unroll 4
    for (int i = 0; i < G; ++i) {
      const uint8_t* blk = g + i * stride + b * kGroupBlockBytes;
      PrefetchBlock(blk, ahead, level);
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {  // rows 8h..8h+7
        const __m256 ws = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16 * h)));
        __m256i s = _mm256_setzero_si256();
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 + 64 * j + 32 * h));
          s = _mm256_add_epi16(s, _mm256_maddubs_epi16(_mm256_and_si256(v, m), Broadcast4(x + 4 * j)));
          s = _mm256_add_epi16(s, _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(v, 4), m),
                                                       Broadcast4(x + 16 + 4 * j)));
        }
        const __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(s, ones), start);
        acc[i][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(ws, dx), acc[i][h]);
      }
    }
  }
  for (int i = 0; i < G; ++i) {
    _mm256_storeu_ps(out + i * kGroupRows, acc[i][0]);
    _mm256_storeu_ps(out + i * kGroupRows + 8, acc[i][1]);
  }
}
constexpr Q4x16LoneFn kLoneTiles[] = {&LoneTile<2>, &LoneTile<4>};  // 2 and 4 groups

template <size_t... I>
constexpr std::array<Q4x16TileFn, sizeof...(I)> MakeTiles(std::index_sequence<I...>) {
  return {&Tile<static_cast<int>(I) + 1>...};
}
constexpr auto kTiles = MakeTiles(std::make_index_sequence<kMaxTileTokens>());  // kTiles[g - 1]: g tokens

}  // namespace

void LinearQ4_0x16Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                       int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  RunQ4x16<kMaxTileTokens>(&LinearQ4_0x16Avx2, kTiles.data(), kLoneTiles, &PrepareBias, q, d, n, in, w, out, o_begin,
                           o_end, y, ldy);
}

}  // namespace gemmad::kernels
