// AVX-512 VNNI kQ4_0 Linear (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq
// -mavx512vnni -mfma -mf16c; the avx512 table uses it where the CPU has VNNI). Rows are stored
// in pairs (tensor/quant_blocks.h): 32 bytes of a pair block hold block b of both rows, low
// nibbles elements 0..15, high nibbles 16..31. One 64-byte register takes blocks b and b+1 of a
// pair, so its four 128-bit quarters are [row 2p blk b, row 2p+1 blk b, row 2p blk b+1, row 2p+1
// blk b+1]. VPDPBUSD multiplies the unsigned nibbles by the int8 activations (x[0..15] of each
// block against the low nibbles, x[16..31] against the high ones, both placed in the matching
// quarters) straight into int32 lanes; the accumulator starts at -8·Σx of the lane's eight
// activations, so each lane ends at its exact Σ (q4 - 8)·x. One convert and one FMA with the
// lanes' d_w·d_x add the chunk, so every block keeps its own scale. An odd last block is one
// masked chunk (zeros above, scale 0). Tiles: one token × four (then two, one) pairs, and two to
// four tokens × four pairs (TileNx4: each chunk's weights split once for all its tokens, the token
// side prepared once per call); every (token, row) output takes the same chunk steps, the same
// d_w·d_x products and the same lane reduction in every tile, so results are batch- and
// range-invariant. The four-pair tiles convert their pairs' sixteen scales at once. The lone last row of an odd count (plain GGML
// blocks) runs one 256-bit block at a time. Include no header with inline code here beyond
// intrinsics and the registry's declarations. GCC 12 reports the AVX-512 intrinsics' undefined
// pass-through operands as uninitialised (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kChunk = 64;      // two blocks of one token's activations
constexpr int64_t kPairBytes = 36;  // sizeof(tensor::BlockQ4_0x2)
constexpr int64_t kLoneBytes = 18;  // sizeof(tensor::BlockQ4_0)
constexpr __mmask64 kLowBlock = 0xFFFFFFFFull;

// How far ahead of a batch-1 tile's read points the software prefetch runs, for pairs of nb
// blocks: within each pair's own stream when a pair is long, else across the next pairs.
inline int64_t PrefetchAhead(const StreamParams& sp, int64_t nb) { return AheadBytes(sp, nb * kPairBytes); }

inline int32_t Load4(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The token side of chunk c (blocks 2c, 2c+1; only 2c when `half`): each block's x[0..15] and
// x[16..31] in the quarters of its two rows, the nibble over-count -8·Σx per lane, and the block
// scales spread over their lanes.
struct XChunk {
  __m512i lo, hi, neg_bias;
  __m512 dx;
};
inline XChunk LoadX(const int8_t* q, const float* d, int64_t c, bool half) {
  XChunk r;
  const __m512i x = _mm512_maskz_loadu_epi8(half ? kLowBlock : ~__mmask64{0}, q + c * kChunk);
  r.lo = _mm512_shuffle_i64x2(x, x, _MM_SHUFFLE(2, 2, 0, 0));
  r.hi = _mm512_shuffle_i64x2(x, x, _MM_SHUFFLE(3, 3, 1, 1));
  const __m512i zero = _mm512_setzero_si512(), eight = _mm512_set1_epi8(8);
  r.neg_bias = _mm512_sub_epi32(zero, _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(zero, eight, r.lo), eight, r.hi));
  const __m512 s = _mm512_maskz_loadu_ps(half ? 0x1 : 0x3, d + 2 * c);
  r.dx = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), s);
  return r;
}

// The weight side of chunk c of one pair (blocks at blk, blk + 36): nibbles split and the lanes'
// row scales [d_even(b) ×4, d_odd(b) ×4, d_even(b+1) ×4, d_odd(b+1) ×4] (zeros above when half).
struct WChunk {
  __m512i lo, hi;
  __m512 scale;
};
inline WChunk LoadW(const uint8_t* blk, bool half) {
  WChunk w;
  // Masked loads (nothing of block b+1 is read when half), so the tail takes the same steps.
  const __m256i v1 = _mm256_maskz_loadu_epi8(half ? 0u : ~0u, blk + kPairBytes + 4);
  const __m512i v = _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4))), v1, 1);
  const __m512i m = _mm512_set1_epi8(15);
  w.lo = _mm512_and_si512(v, m);
  w.hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);
  const __m128i h = _mm_unpacklo_epi32(_mm_cvtsi32_si128(Load4(blk)),
                                       _mm_maskz_loadu_epi32(half ? 0 : 1, blk + kPairBytes));
  const __m128 s = _mm_cvtph_ps(h);
  w.scale = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
                                  _mm512_castps128_ps512(s));
  return w;
}

// acc + (exact int32 lane sums of the chunk) · d_w·d_x: the one step every tile uses.
inline __m512 Step(__m512 acc, const WChunk& w, const XChunk& x) {
  const __m512i p = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.neg_bias, w.lo, x.lo), w.hi, x.hi);
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(p), _mm512_mul_ps(w.scale, x.dx), acc);
}

// Quarters added lane-wise (blocks b and b+1), then row 2p = (l0+l1)+(l2+l3), row 2p+1 =
// (l4+l5)+(l6+l7).
inline void Reduce(__m512 a, float* r) {
  const __m256 f = _mm512_castps512_ps256(_mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0xEE)));
  __m256 h = _mm256_hadd_ps(f, f);
  h = _mm256_hadd_ps(h, h);
  r[0] = _mm256_cvtss_f32(h);
  r[1] = _mm_cvtss_f32(_mm256_extractf128_ps(h, 1));
}

// T tokens (q/d rows with strides in, nb) × P consecutive pairs starting at `pairs`;
// out[t * 2P + 2p + k] = token t · row (2p + k).
template <int T, int P>
inline void PairTile(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* pairs, float* out) {
  __m512 acc[T][P];
  for (int t = 0; t < T; ++t) {
    for (int p = 0; p < P; ++p) acc[t][p] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = PrefetchAhead(sp, nb);
  for (int64_t c = 0; c < (nb + 1) / 2; ++c) {
    const bool half = 2 * c + 1 == nb;
    WChunk w[P];
    for (int p = 0; p < P; ++p) w[p] = LoadW(pairs + (p * nb + 2 * c) * kPairBytes, half);
    if constexpr (T == 1) {  // batch 1 streams the weights: prefetch ahead in every pair (72 bytes a step)
      for (int p = 0; p < P; ++p) {
        const char* at = reinterpret_cast<const char*>(pairs + (p * nb + 2 * c) * kPairBytes) + ahead;
        PrefetchAt(at, sp.level);
        PrefetchAt(at + 64, sp.level);
      }
    }
    for (int t = 0; t < T; ++t) {
      const XChunk x = LoadX(q + t * in, d + t * nb, c, half);
      for (int p = 0; p < P; ++p) acc[t][p] = Step(acc[t][p], w[p], x);
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int p = 0; p < P; ++p) Reduce(acc[t][p], out + t * 2 * P + 2 * p);
  }
}

// Chunk c (blocks 2c, 2c+1) of four consecutive pairs: the four block addresses, with the
// software prefetch `ahead` bytes further in each pair's stream.
inline void FourPairBlocks(const uint8_t* pairs, int64_t nb, int64_t c, int64_t ahead, const StreamParams& sp,
                           const uint8_t* blk[4]) {
  for (int p = 0; p < 4; ++p) blk[p] = pairs + (p * nb + 2 * c) * kPairBytes;
  for (int p = 0; p < 4; ++p) {
    const char* at = reinterpret_cast<const char*>(blk[p]) + ahead;
    PrefetchAt(at, sp.level);
    PrefetchAt(at + 64, sp.level);
  }
}

// Their sixteen f16 scales as f32: lanes 4p..4p+3 = pair p's [d_even(b), d_odd(b), d_even(b+1),
// d_odd(b+1)].
inline __m512 FourPairScales(const uint8_t* const blk[4]) {
  __m128i h[4];
  for (int p = 0; p < 4; ++p) {
    h[p] = _mm_unpacklo_epi32(_mm_cvtsi32_si128(Load4(blk[p])), _mm_cvtsi32_si128(Load4(blk[p] + kPairBytes)));
  }
  return _mm512_cvtph_ps(_mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(h[0], h[1])),
                                                 _mm_unpacklo_epi64(h[2], h[3]), 1));
}

// One pair's two blocks of the chunk, nibbles split (low: against x[0..15] of each block).
inline void SplitPair(const uint8_t* blk, __m512i* lo, __m512i* hi) {
  const __m512i m = _mm512_set1_epi8(15);
  const __m512i v = _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4))),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + kPairBytes + 4)), 1);
  *lo = _mm512_and_si512(v, m);
  *hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);
}

// PairTile<1, 4> with the same lanes and steps, for every chunk but an odd last one: unmasked
// loads, and the four pairs' sixteen f16 scales converted at once and multiplied by the chunk's
// activation scales once (the products are the ones Step forms, so results are bit-identical).
inline void Tile1x4(const int8_t* q, const float* d, int64_t nb, const uint8_t* pairs, float* out) {
  __m512 acc[4];
  for (int p = 0; p < 4; ++p) acc[p] = _mm512_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = PrefetchAhead(sp, nb), full = nb / 2;
  const __m512i dx_lanes = _mm512_setr_epi32(0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8);  // x.dx: b x8, b+1 x8
  __m512i spread[4];
  for (int p = 0; p < 4; ++p) {
    spread[p] = _mm512_add_epi32(_mm512_set1_epi32(4 * p),
                                 _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
  }
  for (int64_t c = 0; c < full; ++c) {
    const uint8_t* blk[4];
    FourPairBlocks(pairs, nb, c, ahead, sp, blk);
    const XChunk x = LoadX(q, d, c, false);
    const __m512 scales = _mm512_mul_ps(FourPairScales(blk), _mm512_permutexvar_ps(dx_lanes, x.dx));
    for (int p = 0; p < 4; ++p) {
      __m512i lo, hi;
      SplitPair(blk[p], &lo, &hi);
      const __m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.neg_bias, lo, x.lo), hi, x.hi);
      acc[p] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_permutexvar_ps(spread[p], scales), acc[p]);
    }
  }
  if (nb % 2 == 1) {
    const XChunk x = LoadX(q, d, full, true);
    for (int p = 0; p < 4; ++p) acc[p] = Step(acc[p], LoadW(pairs + (p * nb + 2 * full) * kPairBytes, true), x);
  }
  for (int p = 0; p < 4; ++p) Reduce(acc[p], out + 2 * p);
}

// The token side of every full chunk, prepared once per call: [lo, hi, neg_bias, dx spread as
// Tile1x4's dx_lanes] per (token, chunk), so that a tile's tokens only load them.
struct PreparedX {
  __m512i lo, hi, neg_bias;
  __m512 dx;
};
inline void PrepareX(const int8_t* q, const float* d, int64_t in, int64_t nb, int64_t n, PreparedX* out) {
  const __m512i dx_lanes = _mm512_setr_epi32(0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8, 0, 0, 8, 8);
  const int64_t full = nb / 2;
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t c = 0; c < full; ++c) {
      const XChunk x = LoadX(q + t * in, d + t * nb, c, false);
      out[t * full + c] = {x.lo, x.hi, x.neg_bias, _mm512_permutexvar_ps(dx_lanes, x.dx)};
    }
  }
}

// Tile1x4 for N tokens at once (2 <= N <= 5): each chunk's weights are loaded, split and their
// scales converted once, then every token takes exactly Tile1x4's steps on them (so each (token,
// row) result is bit-identical to Tile1x4's: batch-invariant). Few-token steps (speculative
// verification, small batches) stream the weights once instead of re-splitting them per token.
// out[t * 8 + j] = token t · row (2·first pair + j).
template <int N>
inline void TileNx4(const int8_t* q, const float* d, int64_t in, int64_t nb, const PreparedX* px,
                    const uint8_t* pairs, float* out) {
  __m512 acc[N][4];
  for (int t = 0; t < N; ++t) {
    for (int p = 0; p < 4; ++p) acc[t][p] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = PrefetchAhead(sp, nb), full = nb / 2;
  const __m512i spread0 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
  for (int64_t c = 0; c < full; ++c) {
    const uint8_t* blk[4];
    FourPairBlocks(pairs, nb, c, ahead, sp, blk);
    const __m512 wscales = FourPairScales(blk);
    __m512i lo[4], hi[4];
    for (int p = 0; p < 4; ++p) SplitPair(blk[p], &lo[p], &hi[p]);
    for (int t = 0; t < N; ++t) {
      const PreparedX& x = px[t * full + c];
      const __m512 scales = _mm512_mul_ps(wscales, x.dx);
      for (int p = 0; p < 4; ++p) {
        const __m512i dot = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.neg_bias, lo[p], x.lo), hi[p], x.hi);
        const __m512i spread = _mm512_add_epi32(_mm512_set1_epi32(4 * p), spread0);
        acc[t][p] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_permutexvar_ps(spread, scales), acc[t][p]);
      }
    }
  }
  if (nb % 2 == 1) {
    WChunk w[4];
    for (int p = 0; p < 4; ++p) w[p] = LoadW(pairs + (p * nb + 2 * full) * kPairBytes, true);
    for (int t = 0; t < N; ++t) {
      const XChunk x = LoadX(q + t * in, d + t * nb, full, true);
      for (int p = 0; p < 4; ++p) acc[t][p] = Step(acc[t][p], w[p], x);
    }
  }
  for (int t = 0; t < N; ++t) {
    for (int p = 0; p < 4; ++p) Reduce(acc[t][p], out + t * 8 + 2 * p);
  }
}

// The lone last row (plain GGML blocks) for one token, a block at a time: elements 0..31 of the
// block are [low nibbles, high nibbles] in order, against x with the same -8·Σx start.
float LoneRow(const int8_t* q, const float* d, int64_t nb, const uint8_t* row) {
  __m256 acc = _mm256_setzero_ps();
  const __m128i m = _mm_set1_epi8(15);
  const __m256i zero = _mm256_setzero_si256(), eight = _mm256_set1_epi8(8);
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = row + b * kLoneBytes;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2));
    const __m256i w = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), m), _mm_and_si128(v, m));
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + b * kBlock));
    const __m256i neg_bias = _mm256_sub_epi32(zero, _mm256_dpbusd_epi32(zero, eight, x));
    uint16_t h;
    std::memcpy(&h, blk, 2);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_dpbusd_epi32(neg_bias, w, x)), _mm256_set1_ps(_cvtsh_ss(h) * d[b]),
                          acc);
  }
  __m256 hsum = _mm256_hadd_ps(acc, acc);
  hsum = _mm256_hadd_ps(hsum, hsum);
  return _mm256_cvtss_f32(hsum) + _mm_cvtss_f32(_mm256_extractf128_ps(hsum, 1));
}

}  // namespace

void LinearQ4_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                          int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / kBlock, full_pairs = out / 2;
  // The prepared token side of the few-token and batched tiles is bounded (kPreparedBytes a call
  // and thread): a longer batch runs in passes of tokens, each a call of its own.
  const auto pass = [&](int64_t t0, int64_t np) {
    LinearQ4_0Avx512Vnni(q + t0 * in, d + t0 * nb, np, in, w, out, o_begin, o_end, y + t0 * ldy, ldy);
  };
  if (RunInPreparedPasses(n, (nb / 2) * static_cast<int64_t>(sizeof(PreparedX)), pass)) return;
  // Pairs touching [o_begin, o_end); rows outside the range are computed but not written.
  const int64_t p_begin = o_begin / 2, p_end = (o_end + 1) / 2 < full_pairs ? (o_end + 1) / 2 : full_pairs;
  const auto put = [&](int64_t t, int64_t row, float v) {
    if (row >= o_begin && row < o_end) y[t * ldy + row] = v;
  };
  // Row blocks keep the weights that several tokens read in L2; a single token reads every pair
  // once, so its whole range is one block (no 1-pair remainders at each block's end).
  const int64_t by_l2 = (int64_t{128} << 10) / (nb * kPairBytes);
  const int64_t pair_block = n == 1 ? p_end - p_begin : (by_l2 < 4 ? 4 : by_l2);
  float r[16];
  // Few-token tiles read the token side prepared once (thread-local scratch, at most kPreparedBytes).
  thread_local std::vector<PreparedX> prepared_buf;
  const PreparedX* prepared = nullptr;
  if (n >= 2) {
    const size_t need = static_cast<size_t>(n * (nb / 2));
    if (prepared_buf.size() < need) prepared_buf.resize(need);
    PrepareX(q, d, in, nb, n, prepared_buf.data());
    prepared = prepared_buf.data();
  }
  for (int64_t pb = p_begin; pb < p_end; pb += pair_block) {
    const int64_t pe = pb + pair_block < p_end ? pb + pair_block : p_end;
    int64_t t = 0;
    // Groups of up to four tokens over four pairs at a time, then the pairs left over.
    for (int g = 0; t + 2 <= n; t += g) {
      g = n - t == 5 ? 5 : n - t >= 4 ? 4 : static_cast<int>(n - t);
      int64_t p = pb;
      float r4[40];
      for (; p + 4 <= pe; p += 4) {
        const int8_t* qt = q + t * in;
        const float* dt = d + t * nb;
        const uint8_t* wp = w + p * nb * kPairBytes;
        const PreparedX* pt = prepared + t * (nb / 2);
        if (g == 5) {
          TileNx4<5>(qt, dt, in, nb, pt, wp, r4);
        } else if (g == 4) {
          TileNx4<4>(qt, dt, in, nb, pt, wp, r4);
        } else if (g == 3) {
          TileNx4<3>(qt, dt, in, nb, pt, wp, r4);
        } else {
          TileNx4<2>(qt, dt, in, nb, pt, wp, r4);
        }
        for (int k = 0; k < g; ++k) {
          for (int j = 0; j < 8; ++j) put(t + k, 2 * p + j, r4[k * 8 + j]);
        }
      }
      for (int k = 0; k < g; ++k) {
        int64_t pp = p;
        if (pp + 2 <= pe) {
          PairTile<1, 2>(q + (t + k) * in, d + (t + k) * nb, in, nb, w + pp * nb * kPairBytes, r);
          for (int j = 0; j < 4; ++j) put(t + k, 2 * pp + j, r[j]);
          pp += 2;
        }
        for (; pp < pe; ++pp) {
          PairTile<1, 1>(q + (t + k) * in, d + (t + k) * nb, in, nb, w + pp * nb * kPairBytes, r);
          put(t + k, 2 * pp, r[0]);
          put(t + k, 2 * pp + 1, r[1]);
        }
      }
    }
    for (; t < n; ++t) {
      int64_t p = pb;
      for (; p + 4 <= pe; p += 4) {
        Tile1x4(q + t * in, d + t * nb, nb, w + p * nb * kPairBytes, r);
        for (int j = 0; j < 8; ++j) put(t, 2 * p + j, r[j]);
      }
      if (p + 2 <= pe) {
        PairTile<1, 2>(q + t * in, d + t * nb, in, nb, w + p * nb * kPairBytes, r);
        for (int j = 0; j < 4; ++j) put(t, 2 * p + j, r[j]);
        p += 2;
      }
      for (; p < pe; ++p) {
        PairTile<1, 1>(q + t * in, d + t * nb, in, nb, w + p * nb * kPairBytes, r);
        put(t, 2 * p, r[0]);
        put(t, 2 * p + 1, r[1]);
      }
    }
  }
  if (out % 2 == 1 && o_end == out) {
    const uint8_t* lone = w + full_pairs * nb * kPairBytes;
    for (int64_t t = 0; t < n; ++t) y[t * ldy + out - 1] = LoneRow(q + t * in, d + t * nb, nb, lone);
  }
}

}  // namespace gemmad::kernels
