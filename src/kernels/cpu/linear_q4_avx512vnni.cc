// AVX-512 VNNI kQ4_0 Linear (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq
// -mavx512vnni -mfma -mf16c; the avx512 table uses it where the CPU has VNNI). Rows are stored
// in pairs (tensor/quant_blocks.h): 32 bytes of a pair block hold block b of both rows, low
// nibbles elements 0..15, high nibbles 16..31. One 64-byte register takes blocks b and b+1 of a
// pair (a chunk), so its four 128-bit quarters are [row 2p blk b, row 2p+1 blk b, row 2p blk b+1,
// row 2p+1 blk b+1]. VPDPBUSD multiplies the unsigned nibbles by the int8 activations (x[0..15] of
// each block against the low nibbles, x[16..31] against the high ones, both placed in the matching
// quarters) straight into int32 lanes, starting from -8·Σx of the lane's eight activations.
// Every tile takes four pairs at a time and adds each quarter's four lanes in integers (two
// rounds of unpack-and-add), so one register holds the exact Σ (q4 - 8)·x of all sixteen (pair,
// quarter) blocks, lane 4·quarter + pair; one convert, one product of the sixteen d_w by the
// chunk's d_x and one FMA add them, so every block keeps its own scale and a token pays one
// convert and one FMA per 512 weights. Each row ends as the sum of its even-block and odd-block
// lanes. An odd last block is one masked chunk (zeros above, scale 0). Tiles: N = 1..8 tokens ×
// four pairs (each chunk's weights split once for all its tokens; the token side is prepared once
// per call); pairs left over at a range's end run the same tile with the last pair repeated, its
// extra results dropped. Every (token, row) output thus takes the same integer sums,
// the same d_w·d_x products and the same chain of FMAs in every tile: results are batch- and
// range-invariant. The lone last row of an odd count (plain GGML blocks) runs one 256-bit block
// at a time. Include no header with inline code here beyond intrinsics and the registry's
// declarations. GCC 12 reports the AVX-512 intrinsics' undefined pass-through operands as
// uninitialised (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <array>
#include <cstdint>
#include <utility>
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

// Chunk c (blocks 2c, 2c+1) of four pairs whose rows start at row[0..3]: the four block
// addresses, with the software prefetch `ahead` bytes further in each pair's stream.
inline void FourPairBlocks(const uint8_t* const row[4], int64_t c, int64_t ahead, const StreamParams& sp,
                           const uint8_t* blk[4]) {
  for (int p = 0; p < 4; ++p) blk[p] = row[p] + 2 * c * kPairBytes;
  for (int p = 0; p < 4; ++p) {
    const char* at = reinterpret_cast<const char*>(blk[p]) + ahead;
    PrefetchAt(at, sp.level);
    PrefetchAt(at + 64, sp.level);
  }
}

// Their sixteen f16 scales as f32 in the reduced sums' order: lane 4q + p = pair p's quarter q
// ([d_even(b), d_odd(b), d_even(b+1), d_odd(b+1)]); block b+1's are zero when `half`.
inline __m512 FourPairScales(const uint8_t* const blk[4], bool half) {
  __m128i h[4];
  for (int p = 0; p < 4; ++p) {
    h[p] = _mm_unpacklo_epi32(_mm_cvtsi32_si128(Load4(blk[p])), _mm_cvtsi32_si128(half ? 0 : Load4(blk[p] + kPairBytes)));
  }
  const __m512 by_pair = _mm512_cvtph_ps(_mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_unpacklo_epi64(h[0], h[1])), _mm_unpacklo_epi64(h[2], h[3]), 1));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), by_pair);
}

// One pair's two blocks of the chunk, nibbles split (low: against x[0..15] of each block);
// nothing of block b+1 is read when `half` (masked loads, so the tail takes the same steps).
inline void SplitPair(const uint8_t* blk, bool half, __m512i* lo, __m512i* hi) {
  const __m512i m = _mm512_set1_epi8(15);
  const __m256i v1 = half ? _mm256_setzero_si256() : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + kPairBytes + 4));
  const __m512i v = _mm512_inserti64x4(
      _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4))), v1, 1);
  *lo = _mm512_and_si512(v, m);
  *hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m);
}

// The token side of every chunk (the odd last one masked), prepared once per call (the values
// LoadX forms), so that a tile's tokens only load them: out[t * chunks + c].
inline void PrepareX(const int8_t* q, const float* d, int64_t in, int64_t nb, int64_t n, XChunk* out) {
  const int64_t chunks = (nb + 1) / 2;
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t c = 0; c < chunks; ++c) out[t * chunks + c] = LoadX(q + t * in, d + t * nb, c, 2 * c + 1 == nb);
  }
}

// acc + the chunk of four pairs for one token: per pair two VPDPBUSD into int32 lanes, each
// quarter's four lanes added in integers (lane 4q + p = pair p's quarter q), one convert and one
// FMA with d_w·d_x. The one step every tile uses.
inline __m512 Step(__m512 acc, const __m512i lo[4], const __m512i hi[4], __m512 wscales, const XChunk& x) {
  __m512i dot[4];
  for (int p = 0; p < 4; ++p) dot[p] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(x.neg_bias, lo[p], x.lo), hi[p], x.hi);
  const __m512i t01 = _mm512_add_epi32(_mm512_unpacklo_epi32(dot[0], dot[1]), _mm512_unpackhi_epi32(dot[0], dot[1]));
  const __m512i t23 = _mm512_add_epi32(_mm512_unpacklo_epi32(dot[2], dot[3]), _mm512_unpackhi_epi32(dot[2], dot[3]));
  const __m512i sums = _mm512_add_epi32(_mm512_unpacklo_epi64(t01, t23), _mm512_unpackhi_epi64(t01, t23));
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_mul_ps(wscales, x.dx), acc);
}

// Rows 2p + k of the four pairs from one token's accumulator: even-block lane + odd-block lane.
inline void Reduce(__m512 acc, float out[8]) {
  alignas(64) float l[16];
  _mm512_store_ps(l, acc);
  for (int p = 0; p < 4; ++p) {
    out[2 * p] = l[p] + l[8 + p];
    out[2 * p + 1] = l[4 + p] + l[12 + p];
  }
}

// Chunk c of the four pairs whose rows start at row[0..3]: block addresses (prefetching ahead),
// their scales and split nibbles, shared by every token of a tile.
struct WChunk {
  __m512i lo[4], hi[4];
  __m512 scales;
};
inline void LoadW(const uint8_t* const row[4], int64_t c, bool half, int64_t ahead, const StreamParams& sp, WChunk* w) {
  const uint8_t* blk[4];
  FourPairBlocks(row, c, ahead, sp, blk);
  w->scales = FourPairScales(blk, half);
  for (int p = 0; p < 4; ++p) SplitPair(blk[p], half, &w->lo[p], &w->hi[p]);
}

// N tokens (`px`: their prepared chunks, PrepareX's layout) × the four pairs of nb blocks whose
// rows start at row[0..3]; out[t * 8 + 2p + k] = token t · row 2p + k of pair p.
template <int N>
void Tile(int64_t nb, const XChunk* px, const uint8_t* const row[4], float* out) {
  __m512 acc[N];
  for (int t = 0; t < N; ++t) acc[t] = _mm512_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = PrefetchAhead(sp, nb), chunks = (nb + 1) / 2;
  WChunk w;
  for (int64_t c = 0; c < chunks; ++c) {
    LoadW(row, c, 2 * c + 1 == nb, ahead, sp, &w);
    for (int t = 0; t < N; ++t) acc[t] = Step(acc[t], w.lo, w.hi, w.scales, px[t * chunks + c]);
  }
  for (int t = 0; t < N; ++t) Reduce(acc[t], out + t * 8);
}

using TileFn = void (*)(int64_t, const XChunk*, const uint8_t* const[4], float*);
constexpr int kMaxTileTokens = 8;
template <size_t... I>
constexpr std::array<TileFn, sizeof...(I)> MakeTiles(std::index_sequence<I...>) {
  return {&Tile<static_cast<int>(I) + 1>...};
}
constexpr auto kTiles = MakeTiles(std::make_index_sequence<kMaxTileTokens>());  // kTiles[g - 1]: g tokens

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
  // The prepared token side is bounded (kPreparedBytes a call and thread): a longer batch runs in
  // passes of tokens, each a call of its own.
  const auto pass = [&](int64_t t0, int64_t np) {
    LinearQ4_0Avx512Vnni(q + t0 * in, d + t0 * nb, np, in, w, out, o_begin, o_end, y + t0 * ldy, ldy);
  };
  const int64_t chunks = (nb + 1) / 2;
  if (RunInPreparedPasses(n, chunks * static_cast<int64_t>(sizeof(XChunk)), pass)) return;
  // Pairs touching [o_begin, o_end); rows outside the range are computed but not written.
  const int64_t p_begin = o_begin / 2, p_end = (o_end + 1) / 2 < full_pairs ? (o_end + 1) / 2 : full_pairs;
  // Row blocks (a multiple of the tile's four pairs) keep the weights that several tokens read in
  // L2; a single token reads every pair once, so its whole range is one block.
  const int64_t by_l2 = ((int64_t{128} << 10) / (nb * kPairBytes)) & ~int64_t{3};
  const int64_t pair_block = n == 1 ? p_end - p_begin : (by_l2 < 4 ? 4 : by_l2);
  // The tiles read the token side prepared once per call (thread-local scratch, at most
  // kPreparedBytes), not once per tile.
  thread_local std::vector<XChunk> prepared_buf;
  const size_t need = static_cast<size_t>(n * chunks);
  if (prepared_buf.size() < need) prepared_buf.resize(need);
  PrepareX(q, d, in, nb, n, prepared_buf.data());
  const XChunk* prepared = prepared_buf.data();
  float r[kMaxTileTokens * 8];
  for (int64_t pb = p_begin; pb < p_end; pb += pair_block) {
    const int64_t pe = pb + pair_block < p_end ? pb + pair_block : p_end;
    for (int64_t t = 0, g = 0; t < n; t += g) {
      g = n - t < kMaxTileTokens ? n - t : kMaxTileTokens;
      const TileFn tile = kTiles[static_cast<size_t>(g - 1)];
      for (int64_t p = pb; p < pe; p += 4) {
        // Four pairs; past the block's end the last pair again (its results are dropped).
        const uint8_t* rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = w + (p + k < pe ? p + k : pe - 1) * nb * kPairBytes;
        tile(nb, prepared + t * chunks, rows, r);
        const int64_t np = pe - p < 4 ? pe - p : 4;
        for (int64_t k = 0; k < g; ++k) {
          float* yt = y + (t + k) * ldy;
          for (int64_t j = 0; j < 2 * np; ++j) {
            const int64_t row = 2 * p + j;
            if (row >= o_begin && row < o_end) yt[row] = r[k * 8 + j];
          }
        }
      }
    }
  }
  if (out % 2 == 1 && o_end == out) {
    const uint8_t* lone = w + full_pairs * nb * kPairBytes;
    for (int64_t t = 0; t < n; ++t) y[t * ldy + out - 1] = LoneRow(q + t * in, d + t * nb, nb, lone);
  }
}

}  // namespace gemmad::kernels
