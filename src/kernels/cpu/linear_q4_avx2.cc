// AVX2 kQ4_0 Linear (compiled with -mavx2 -mfma -mf16c). Rows are stored in pairs
// (tensor/quant_blocks.h), so one 32-byte load carries a block of two rows: the low nibbles are
// elements 0..15 of both rows, the high nibbles 16..31. The nibbles (0..15, unsigned) multiply
// the int8 activations directly (x[0..15] and x[16..31] broadcast to both halves), and the
// over-count 8·Σx of the block is subtracted in int32 — no sign juggling. Per block and pair:
// lanes 0-3 hold row 2p, lanes 4-7 row 2p+1; one FMA with [d_even ×4, d_odd ×4] · d_x adds it
// to the pair's accumulator. Tiles: one token × four pairs, four tokens × two pairs. Every
// (token, row) output takes the same per-block steps and the same lane reduction in every tile,
// so results are batch- and range-invariant. The lone last row of an odd count uses GGML's
// plain block layout. Unaligned loads throughout; no header with inline code beyond intrinsics
// and the registry.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kPairBytes = 36;  // sizeof(tensor::BlockQ4_0x2)
constexpr int64_t kLoneBytes = 18;  // sizeof(tensor::BlockQ4_0)

// The activation side of block b for one token: x[0..15] and x[16..31] in both halves, and the
// lane sums of 8·x that the unsigned nibbles over-count (same lane layout as PairDot).
struct XBlock {
  __m256i lo, hi, corr;
  __m256 dx;
};
inline XBlock LoadX(const int8_t* qb, float dx) {
  XBlock x;
  x.lo = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qb)));
  x.hi = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(qb + 16)));
  const __m256i eight = _mm256_set1_epi8(8);
  const __m256i c16 = _mm256_add_epi16(_mm256_maddubs_epi16(eight, x.lo), _mm256_maddubs_epi16(eight, x.hi));
  x.corr = _mm256_madd_epi16(c16, _mm256_set1_epi16(1));
  x.dx = _mm256_set1_ps(dx);
  return x;
}

// The weight side of one pair block: nibbles split, and [d_even ×4, d_odd ×4].
struct WPair {
  __m256i lo, hi;
  __m256 scale;
};
inline WPair LoadPair(const uint8_t* blk) {
  WPair w;
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4));
  const __m256i m = _mm256_set1_epi8(15);
  w.lo = _mm256_and_si256(v, m);
  w.hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);
  int32_t bits;
  std::memcpy(&bits, blk, 4);
  const __m128 s = _mm_cvtph_ps(_mm_cvtsi32_si128(bits));
  w.scale = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s), _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
  return w;
}

// acc + Σ_j (q4 - 8)·x over the block, per lane group, times d_w·d_x: the one step of every tile.
inline __m256 PairStep(__m256 acc, const WPair& w, const XBlock& x) {
  const __m256i p16 = _mm256_add_epi16(_mm256_maddubs_epi16(w.lo, x.lo), _mm256_maddubs_epi16(w.hi, x.hi));
  const __m256i p32 = _mm256_sub_epi32(_mm256_madd_epi16(p16, _mm256_set1_epi16(1)), x.corr);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(p32), _mm256_mul_ps(w.scale, x.dx), acc);
}

// Row 2p = (l0+l1)+(l2+l3), row 2p+1 = (l4+l5)+(l6+l7).
inline void Reduce(__m256 a, float* r) {
  __m256 h = _mm256_hadd_ps(a, a);
  h = _mm256_hadd_ps(h, h);
  r[0] = _mm256_cvtss_f32(h);
  r[1] = _mm_cvtss_f32(_mm256_extractf128_ps(h, 1));
}

// T tokens (q/d rows with strides in, nb) × P consecutive pairs starting at `pairs`;
// out[t * 2P + 2p + k] = token t · row (2p + k).
template <int T, int P>
inline void PairTile(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* pairs, float* out) {
  __m256 acc[T][P];
  for (int t = 0; t < T; ++t) {
    for (int p = 0; p < P; ++p) acc[t][p] = _mm256_setzero_ps();
  }
  const int64_t ahead = nb * kPairBytes >= 8192 ? 4096 : 8192;  // prefetch distance (linear_avx512.cc)
  for (int64_t b = 0; b < nb; ++b) {
    WPair w[P];
    for (int p = 0; p < P; ++p) w[p] = LoadPair(pairs + (p * nb + b) * kPairBytes);
    // The weights stream from memory at batch 1 and in the first token group of a few-token step.
    for (int p = 0; p < P; ++p) {
      _mm_prefetch(reinterpret_cast<const char*>(pairs + (p * nb + b) * kPairBytes + ahead), _MM_HINT_T0);
    }
    for (int t = 0; t < T; ++t) {
      const XBlock x = LoadX(q + t * in + b * kBlock, d[t * nb + b]);
      for (int p = 0; p < P; ++p) acc[t][p] = PairStep(acc[t][p], w[p], x);
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int p = 0; p < P; ++p) Reduce(acc[t][p], out + t * 2 * P + 2 * p);
  }
}

// The lone last row (plain GGML blocks) for one token: nibbles minus 8, |w| times x·sign(w).
float LoneRow(const int8_t* q, const float* d, int64_t nb, const uint8_t* row) {
  __m256 acc = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* blk = row + b * kLoneBytes;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 2));
    const __m128i m = _mm_set1_epi8(15);
    const __m256i w = _mm256_sub_epi8(
        _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), m), _mm_and_si128(v, m)), _mm256_set1_epi8(8));
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + b * kBlock));
    const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(x, w));
    uint16_t h;
    std::memcpy(&h, blk, 2);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(p16, _mm256_set1_epi16(1))),
                          _mm256_set1_ps(_cvtsh_ss(h) * d[b]), acc);
  }
  __m256 hsum = _mm256_hadd_ps(acc, acc);
  hsum = _mm256_hadd_ps(hsum, hsum);
  return _mm256_cvtss_f32(hsum) + _mm_cvtss_f32(_mm256_extractf128_ps(hsum, 1));
}

}  // namespace

void LinearQ4_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                    int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / kBlock, full_pairs = out / 2;
  // Pairs touching [o_begin, o_end); rows outside the range are computed but not written.
  const int64_t p_begin = o_begin / 2, p_end = (o_end + 1) / 2 < full_pairs ? (o_end + 1) / 2 : full_pairs;
  const auto put = [&](int64_t t, int64_t row, float v) {
    if (row >= o_begin && row < o_end) y[t * ldy + row] = v;
  };
  // Pair blocks whose weights stay in L2 while every token group reads them, a multiple of the
  // tiles' two pairs so that no pair of a block falls to the one-pair tiles.
  const int64_t by_l2 = ((int64_t{128} << 10) / (nb * kPairBytes)) & ~int64_t{1};
  const int64_t pair_block = by_l2 < 2 ? 2 : by_l2;
  float r[16];
  for (int64_t pb = p_begin; pb < p_end; pb += pair_block) {
    const int64_t pe = pb + pair_block < p_end ? pb + pair_block : p_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      int64_t p = pb;
      for (; p + 2 <= pe; p += 2) {
        PairTile<4, 2>(q + t * in, d + t * nb, in, nb, w + p * nb * kPairBytes, r);
        for (int k = 0; k < 4; ++k) {
          for (int j = 0; j < 4; ++j) put(t + k, 2 * p + j, r[k * 4 + j]);
        }
      }
      for (; p < pe; ++p) {
        PairTile<4, 1>(q + t * in, d + t * nb, in, nb, w + p * nb * kPairBytes, r);
        for (int k = 0; k < 4; ++k) {
          for (int j = 0; j < 2; ++j) put(t + k, 2 * p + j, r[k * 2 + j]);
        }
      }
    }
    for (; t < n; ++t) {
      int64_t p = pb;
      for (; p + 4 <= pe; p += 4) {
        PairTile<1, 4>(q + t * in, d + t * nb, in, nb, w + p * nb * kPairBytes, r);
        for (int j = 0; j < 8; ++j) put(t, 2 * p + j, r[j]);
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
