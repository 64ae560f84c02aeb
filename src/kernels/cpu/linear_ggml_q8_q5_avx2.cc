// AVX2 Linear kernels for the ggml block types Q8_0 and Q5_0 (tensor/ggml_blocks.h), read in
// place (compiled with -mavx2 -mfma -mf16c). Rows lie one after the other, nb blocks each:
//   Q8_0 {f16 d; int8 qs[32]} (34 bytes): the 32 values are the int8 bytes; a block is one 8-bit
//     multiply-add of |w| (unsigned) by x·sign(w) (signed), pairs to int16 (≤ 2·127·127, no
//     saturation), then pairs to eight int32 lanes: the exact Σ x·w of the block.
//   Q5_0 {f16 d; uint8 qh[4]; uint8 qs[16]} (22 bytes): value j = u_j − 16 with
//     u_j = nibble | (bit j of qh) << 4 in [0, 31]: low nibbles are elements 0..15, high nibbles
//     16..31; the bits are spread to bytes by one shuffle, an OR and a compare. u (unsigned)
//     multiplies x directly (≤ 2·31·127 per pair) and the over-count 16·Σx, computed once per
//     token and block, is subtracted in int32, so each lane is again exact.
// Each block's eight int32 lanes are converted and added by one FMA with d_w·d_x. Tiles: one
// token × four rows (batch-1 decode, the weights streamed with a software prefetch ahead of
// every row), four tokens × two rows (each decoded weight block reused by four tokens); the
// remainders one row at a time. Every (token, row) output takes the same per-block steps and the
// same lane reduction in every tile, so results are batch- and range-invariant. Unaligned loads
// throughout; no header with inline code beyond intrinsics and the registry.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;

inline __m256i Load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

inline float F16At(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// The token side of one block: its 32 int8 activations, the Q5_0 over-count 16·Σx per lane (zero
// for Q8_0, which does not use it) and d_x.
struct XBlock {
  __m256i x, corr;
  float dx;
};

// Q8_0: the block's values as int8; Dot gives the eight exact int32 lane sums of x·w.
struct Q8_0 {
  static constexpr int64_t kBytes = 34;
  static constexpr bool kCorr = false;
  static __m256i Values(const uint8_t* blk) { return Load32(blk + 2); }
  static __m256i Dot(__m256i w, const XBlock& x) {
    const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(x.x, w));
    return _mm256_madd_epi16(p16, _mm256_set1_epi16(1));
  }
};

// Q5_0: the block's u = value + 16 as unsigned bytes in element order.
struct Q5_0 {
  static constexpr int64_t kBytes = 22;
  static constexpr bool kCorr = true;
  static __m256i Values(const uint8_t* blk) {
    const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 6));
    const __m128i m = _mm_set1_epi8(15);
    const __m256i nib = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(qs, 4), m), _mm_and_si128(qs, m));
    int32_t qh;
    std::memcpy(&qh, blk + 2, 4);
    // Byte j takes byte j/8 of qh; OR-ing every bit but j % 8 leaves all ones exactly when bit j is set.
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(qh), _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
    const __m256i set = _mm256_cmpeq_epi8(_mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe)),
                                          _mm256_set1_epi64x(-1));
    return _mm256_or_si256(nib, _mm256_and_si256(set, _mm256_set1_epi8(16)));
  }
  static __m256i Dot(__m256i u, const XBlock& x) {
    return _mm256_sub_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(u, x.x), _mm256_set1_epi16(1)), x.corr);
  }
};

template <typename F>
inline XBlock LoadX(const int8_t* qb, float dx) {
  XBlock r;
  r.x = Load32(qb);
  r.dx = dx;
  if constexpr (F::kCorr) {
    r.corr = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(16), r.x), _mm256_set1_epi16(1));
  } else {
    r.corr = _mm256_setzero_si256();
  }
  return r;
}

// [Σa, Σb, Σc, Σd], each ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)) whatever its position.
inline __m128 Hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
  const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// T tokens (q/d rows with strides in, nb) × R rows; out[t * R + r] = token t · rows[r].
template <typename F, int T, int R>
inline void Tile(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* const* rows, float* out) {
  __m256 acc[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm256_setzero_ps();
  }
  // Batch 1 streams the weights: every row prefetches this far ahead, about once per cache line.
  constexpr int64_t kEvery = (64 + F::kBytes - 1) / F::kBytes;
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, nb * F::kBytes);
  for (int64_t b = 0; b < nb; ++b) {
    __m256i w[R];
    float dw[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* blk = rows[r] + b * F::kBytes;
      w[r] = F::Values(blk);
      dw[r] = F16At(blk);
      if (b % kEvery == 0) PrefetchAt(blk + ahead, sp.level);  // the weights stream from memory
    }
    for (int t = 0; t < T; ++t) {
      const XBlock x = LoadX<F>(q + t * in + b * kBlock, d[t * nb + b]);
      for (int r = 0; r < R; ++r) {
        acc[t][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(F::Dot(w[r], x)), _mm256_set1_ps(x.dx * dw[r]), acc[t][r]);
      }
    }
  }
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; r += 4) {
      const int k1 = r + 1 < R ? r + 1 : r, k2 = r + 2 < R ? r + 2 : r, k3 = r + 3 < R ? r + 3 : r;
      float s[4];
      _mm_storeu_ps(s, Hsum4(acc[t][r], acc[t][k1], acc[t][k2], acc[t][k3]));
      for (int k = 0; k < 4 && r + k < R; ++k) out[t * R + r + k] = s[k];
    }
  }
}

template <typename F>
void Run(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
         float* y, int64_t ldy) {
  const int64_t nb = in / kBlock;
  const size_t stride = static_cast<size_t>(nb * F::kBytes);
  const auto row = [&](int64_t o) { return w + static_cast<size_t>(o) * stride; };
  // Several tokens: row blocks whose weights stay in L2 while every token group reads them. One
  // token reads each row once, so its whole range is one block. A multiple of the tiles' two rows,
  // so that no row of a block falls to the one-row tiles.
  const int64_t by_l2 = static_cast<int64_t>((size_t{128} << 10) / stride) & ~int64_t{1};
  const int64_t row_block = n < 4 ? o_end - o_begin : (by_l2 < 2 ? 2 : by_l2);
  float r[8];
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      int64_t o = ob;
      for (; o + 2 <= oe; o += 2) {
        const uint8_t* rows[2] = {row(o), row(o + 1)};
        Tile<F, 4, 2>(qt, dt, in, nb, rows, r);
        for (int k = 0; k < 4; ++k) {
          y[(t + k) * ldy + o] = r[k * 2];
          y[(t + k) * ldy + o + 1] = r[k * 2 + 1];
        }
      }
      for (; o < oe; ++o) {
        const uint8_t* rows[1] = {row(o)};
        Tile<F, 4, 1>(qt, dt, in, nb, rows, r);
        for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = r[k];
      }
    }
    for (; t < n; ++t) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      int64_t o = ob;
      for (; o + 4 <= oe; o += 4) {
        const uint8_t* rows[4] = {row(o), row(o + 1), row(o + 2), row(o + 3)};
        Tile<F, 1, 4>(qt, dt, in, nb, rows, y + t * ldy + o);
      }
      for (; o < oe; ++o) {
        const uint8_t* rows[1] = {row(o)};
        Tile<F, 1, 1>(qt, dt, in, nb, rows, y + t * ldy + o);
      }
    }
  }
}

}  // namespace

void LinearGgmlQ8_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t /*out*/,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q8_0>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

void LinearGgmlQ5_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t /*out*/,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q5_0>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
