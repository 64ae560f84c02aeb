// AVX-512 VNNI Linear kernels for the ggml block types Q8_0 and Q5_0 (tensor/ggml_blocks.h),
// read in place (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma
// -mf16c; the avx512 table uses them where the CPU has VNNI). One 64-byte register holds blocks
// 2c and 2c+1 of a row in element order (lanes 0-7 block 2c, 8-15 block 2c+1), against the
// token's 64 activations as they lie. VPDPBUSD multiplies unsigned by signed bytes straight into
// int32 lanes, so the weights are made unsigned and the accumulator starts at minus the
// over-count (per token and chunk, shared by every row of a tile), leaving each lane at its exact
// integer Σ x·w:
//   Q8_0 {f16 d; int8 qs[32]} (34 bytes): u = w + 128 (one XOR), start −128·Σx;
//   Q5_0 {f16 d; uint8 qh[4]; uint8 qs[16]} (22 bytes): u = nibble | (bit j of qh) << 4 in
//     [0, 31] (low nibbles elements 0..15, high nibbles 16..31, shifted apart by one variable
//     shift; the two blocks' qh words are one 64-bit byte mask), start −16·Σx.
// One convert and one FMA with [d_w·d_x (2c) ×8, d_w·d_x (2c+1) ×8] add the chunk, so every block
// keeps its own scale. An odd last block is one masked chunk (zeros above, scale 0; nothing past
// the row is read). Tiles: one token × four rows (batch-1 decode, prefetching ahead of every
// row), four tokens × four rows; remainders one row at a time. Every (token, row) output takes
// the same chunk steps and the same lane reduction in every tile, so results are batch- and
// range-invariant. Include no header with inline code here beyond intrinsics and the registry's
// declarations. GCC 12 reports the AVX-512 intrinsics' undefined pass-through operands as
// uninitialised (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kChunk = 64;  // two blocks of one token's activations
constexpr __mmask64 kLowBlock = 0xFFFFFFFFull;

inline uint32_t Load16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// [d(2c) ×8, d(2c+1) ×8] from the two blocks' f16 scales (the second 0 when `half`).
inline __m512 BlockScales(const uint8_t* blk, int64_t bytes, bool half) {
  const uint32_t h = Load16(blk) | (half ? 0u : Load16(blk + bytes) << 16);
  const __m128 s = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(h)));
  return _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                               _mm512_castps128_ps512(s));
}

// Q8_0: chunk of two blocks at blk (and blk + 34), biased to unsigned.
struct Q8_0 {
  static constexpr int64_t kBytes = 34;
  static constexpr int kBias = 128;
  static __m512i Values(const uint8_t* blk, bool half) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 2));
    const __m256i hi = _mm256_maskz_loadu_epi8(half ? 0u : ~0u, blk + kBytes + 2);
    const __m512i w = _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
    return _mm512_xor_si512(w, _mm512_set1_epi8(static_cast<char>(0x80)));
  }
};

// Q5_0: chunk of two blocks at blk (and blk + 22) as u = value + 16.
struct Q5_0 {
  static constexpr int64_t kBytes = 22;
  static constexpr int kBias = 16;
  static __m512i Values(const uint8_t* blk, bool half) {
    const __m128i qs0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 6));
    const __m128i qs1 = _mm_maskz_loadu_epi8(half ? 0 : 0xFFFF, blk + kBytes + 6);
    // Quarters [qs0, qs0, qs1, qs1], the second of each pair shifted by 4: [lo0, hi0, lo1, hi1].
    const __m512i both = _mm512_castsi256_si512(_mm256_set_m128i(qs1, qs0));
    const __m512i dup = _mm512_shuffle_i64x2(both, both, _MM_SHUFFLE(1, 1, 0, 0));
    const __m512i shift = _mm512_setr_epi64(0, 0, 0x0004000400040004, 0x0004000400040004, 0, 0,
                                            0x0004000400040004, 0x0004000400040004);
    const __m512i nib = _mm512_and_si512(_mm512_srlv_epi16(dup, shift), _mm512_set1_epi8(15));
    uint32_t qh0, qh1 = 0;
    std::memcpy(&qh0, blk + 2, 4);
    if (!half) std::memcpy(&qh1, blk + kBytes + 2, 4);
    const __mmask64 bits = _cvtu64_mask64(static_cast<uint64_t>(qh0) | static_cast<uint64_t>(qh1) << 32);
    return _mm512_mask_add_epi8(nib, bits, nib, _mm512_set1_epi8(16));  // bit 4 is clear: + 16 = | 16
  }
};

// The token side of chunk c (blocks 2c, 2c+1; only 2c when `half`): the activations, the start
// −bias·Σx per lane, and the two block scales spread over their lanes.
struct XChunk {
  __m512i x, neg_bias;
  __m512 dx;
};
template <typename F>
inline XChunk LoadX(const int8_t* q, const float* d, int64_t c, bool half) {
  XChunk r;
  r.x = _mm512_maskz_loadu_epi8(half ? kLowBlock : ~__mmask64{0}, q + c * kChunk);
  const __m512i zero = _mm512_setzero_si512();
  r.neg_bias = _mm512_sub_epi32(zero, _mm512_dpbusd_epi32(zero, _mm512_set1_epi8(static_cast<char>(F::kBias)), r.x));
  const __m512 s = _mm512_maskz_loadu_ps(half ? 0x1 : 0x3, d + 2 * c);
  r.dx = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), s);
  return r;
}

// Lane sums of four accumulators, [Σa, Σb, Σc, Σd]: halves added lane-wise, then
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), the same for every position.
inline __m256 Fold(__m512 a) { return _mm512_castps512_ps256(_mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0xEE))); }
inline __m128 Hsum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(Fold(a), Fold(b)), _mm256_hadd_ps(Fold(c), Fold(d)));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// T tokens (q/d rows with strides in, nb) × R rows; out[t * R + r] = token t · rows[r].
template <typename F, int T, int R>
inline void Tile(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* const* rows, float* out) {
  __m512 acc[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, nb * F::kBytes);
  for (int64_t c = 0; c < (nb + 1) / 2; ++c) {
    const bool half = 2 * c + 1 == nb;  // masked loads, so the loop body is the same for the tail
    __m512i u[R];
    __m512 ws[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* blk = rows[r] + 2 * c * F::kBytes;
      u[r] = F::Values(blk, half);
      ws[r] = BlockScales(blk, F::kBytes, half);
      {  // the weights stream from memory (batch 1, a few-token step's first group): about one prefetch per line and row
        const char* at = reinterpret_cast<const char*>(blk) + ahead;
        PrefetchAt(at, sp.level);
        if (2 * F::kBytes > 64) PrefetchAt(at + 64, sp.level);
      }
    }
    for (int t = 0; t < T; ++t) {
      const XChunk x = LoadX<F>(q + t * in, d + t * nb, c, half);
      for (int r = 0; r < R; ++r) {
        const __m512i dot = _mm512_dpbusd_epi32(x.neg_bias, u[r], x.x);
        acc[t][r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(ws[r], x.dx), acc[t][r]);
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
  // token reads each row once, so its whole range is one block. A multiple of the tiles' four
  // rows, so that no row of a block falls to the one-row tiles.
  const int64_t by_l2 = static_cast<int64_t>((size_t{128} << 10) / stride) & ~int64_t{3};
  const int64_t row_block = n < 4 ? o_end - o_begin : (by_l2 < 4 ? 4 : by_l2);
  float r[16];
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      int64_t o = ob;
      for (; o + 4 <= oe; o += 4) {
        const uint8_t* rows[4] = {row(o), row(o + 1), row(o + 2), row(o + 3)};
        Tile<F, 4, 4>(qt, dt, in, nb, rows, r);
        for (int k = 0; k < 4; ++k) {
          for (int j = 0; j < 4; ++j) y[(t + k) * ldy + o + j] = r[k * 4 + j];
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

void LinearGgmlQ8_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
                              int64_t /*out*/, int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q8_0>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

void LinearGgmlQ5_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
                              int64_t /*out*/, int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q5_0>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
