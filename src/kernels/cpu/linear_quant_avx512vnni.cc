// AVX-512 VNNI kQ8R Linear (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq
// -mavx512vnni -mfma -mf16c; the avx512 table uses it where the CPU has VNNI). One 64-byte
// register holds two 32-element blocks. VPDPBUSD multiplies unsigned by signed bytes into int32
// lanes without an int16 step, so the weights are biased instead of sign-juggled: u = w + 128
// (one XOR, shared by every token of a tile) and the accumulator starts at -128·Σx of the lane's
// four activations (computed once per token and chunk, shared by every row of the tile), so
// each lane ends at its exact integer Σ x·w. Lanes 0-7 then belong to block 2c and 8-15 to block
// 2c+1; one convert and one FMA with [d_x(2c) ×8, d_x(2c+1) ×8] add the chunk, so every block
// keeps its own scale. An odd last block is one masked chunk (zeros above, scale 0). Tiles: one
// token × four rows (rows from the four quarters of the range: four sequential streams), and two
// to five tokens × four rows over the token side prepared once per call (PreparedTile; batches
// longer than kPreparedBytes of it run in passes of tokens); every
// (token, row) output takes the same chunk steps and the same lane reduction in every tile, so
// results are batch- and range-invariant.
// Include no header with inline code here beyond intrinsics and the registry's declarations.
// GCC 12 reports the AVX-512 intrinsics' undefined pass-through operands as uninitialised
// (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;  // tensor::kQuantBlock
constexpr int64_t kChunk = 64;  // two blocks per register
constexpr __mmask64 kLowBlock = 0xFFFFFFFFull;

// The token side of chunk c (blocks 2c, 2c+1; only 2c when `half`): the activations, the
// bias correction per lane, and the two block scales spread over their lanes.
struct XChunk {
  __m512i x, neg_bias;
  __m512 dx;
};
inline XChunk LoadX(const int8_t* q, const float* d, int64_t c, bool half) {
  XChunk r;
  r.x = _mm512_maskz_loadu_epi8(half ? kLowBlock : ~__mmask64{0}, q + c * kChunk);
  const __m512i zero = _mm512_setzero_si512();
  r.neg_bias = _mm512_sub_epi32(zero, _mm512_dpbusd_epi32(zero, _mm512_set1_epi8(static_cast<char>(0x80)), r.x));
  const __m512 s = _mm512_maskz_loadu_ps(half ? 0x1 : 0x3, d + 2 * c);
  r.dx = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), s);
  return r;
}

// A row's chunk c, biased to unsigned (zeros above an odd last block; the activations there
// are zero too, so those lanes add nothing).
inline __m512i LoadW(const uint8_t* blocks, int64_t c, bool half) {
  const __m512i w = _mm512_maskz_loadu_epi8(half ? kLowBlock : ~__mmask64{0}, blocks + c * kChunk);
  return _mm512_xor_si512(w, _mm512_set1_epi8(static_cast<char>(0x80)));
}

// acc + (exact int32 lane sums of the chunk) · d_x: the one step every tile uses.
inline __m512 Step(__m512 acc, __m512i u, const XChunk& x) {
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_dpbusd_epi32(x.neg_bias, u, x.x)), x.dx, acc);
}

// Lane sums of four accumulators, [Σa, Σb, Σc, Σd], with linear_avx512.cc's formula: halves
// added lane-wise, then ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)), the same for every position.
inline __m256 Fold(__m512 a) { return _mm512_castps512_ps256(_mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0xEE))); }
inline __m128 Hsum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(Fold(a), Fold(b)), _mm256_hadd_ps(Fold(c), Fold(d)));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

inline size_t Stride(int64_t in) { return sizeof(float) + static_cast<size_t>(in); }
inline const uint8_t* Blocks(const uint8_t* row) { return row + sizeof(float); }
inline float RowScale(const uint8_t* row) {
  float s;
  std::memcpy(&s, row, sizeof(float));
  return s;
}

// The lane reduction every tile ends with: out[t * R + r] = (Hsum4 of acc[t][r]) · rows[r]'s scale,
// four rows at a time with the same formula in every position.
template <int T, int R>
inline void ReduceRows(const __m512 (&acc)[T][R], const uint8_t* const* rows, float* out) {
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; r += 4) {
      const int k1 = r + 1 < R ? r + 1 : r, k2 = r + 2 < R ? r + 2 : r, k3 = r + 3 < R ? r + 3 : r;
      float s[4];
      _mm_storeu_ps(s, Hsum4(acc[t][r], acc[t][k1], acc[t][k2], acc[t][k3]));
      for (int k = 0; k < 4 && r + k < R; ++k) out[t * R + r + k] = s[k] * RowScale(rows[r + k]);
    }
  }
}

// T tokens (q/d rows with strides in, nb) × R rows; out[t * R + r] = token t · rows[r].
template <int T, int R>
inline void Tile(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* const* rows, float* out) {
  __m512 acc[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, in + 4);
  for (int64_t c = 0; c < (nb + 1) / 2; ++c) {
    const bool half = 2 * c + 1 == nb;  // masked loads, so the loop body is the same for the tail
    __m512i u[R];
    for (int r = 0; r < R; ++r) u[r] = LoadW(Blocks(rows[r]), c, half);
    // The weights stream from memory (this tile runs batch 1 only): prefetch ahead in every row
    // (linear_avx512.cc), at the batch-1 level.
    for (int r = 0; r < R; ++r) PrefetchAt(Blocks(rows[r]) + 64 * c + ahead, sp.level_int8);
    for (int t = 0; t < T; ++t) {
      const XChunk x = LoadX(q + t * in, d + t * nb, c, half);
      for (int r = 0; r < R; ++r) acc[t][r] = Step(acc[t][r], u[r], x);
    }
  }
  ReduceRows<T, R>(acc, rows, out);
}

// The token side of every chunk (the odd last one masked as LoadX does), prepared once per call
// for the few-token and batched tiles: [x, -128·Σx per lane, d_x spread] per (token, chunk), the
// values LoadX forms, so every Step takes the same operands as in Tile<1, R>.
inline void PrepareX(const int8_t* q, const float* d, int64_t in, int64_t nb, int64_t n, XChunk* out) {
  const int64_t chunks = (nb + 1) / 2;
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t c = 0; c < chunks; ++c) out[t * chunks + c] = LoadX(q + t * in, d + t * nb, c, 2 * c + 1 == nb);
  }
}

// Tile<T, R> over prepared token chunks (px[t * chunks + c]) and R rows at `row0 + r·stride`: the
// same Steps in the same order and the same reduction as Tile, so each (token, row) output is
// bit-identical to the one-token tile's. The weights of a chunk are loaded and biased once for
// all T tokens, and the token side is loaded, not recomputed, per token: only the accumulators,
// the R weight registers and one token's three operands are live, so nothing spills.
template <int T, int R>
inline void PreparedTile(const XChunk* px, int64_t chunks, int64_t nb, const uint8_t* row0, size_t stride,
                         float* out) {
  __m512 acc[T][R];
  for (int t = 0; t < T; ++t) {
    for (int r = 0; r < R; ++r) acc[t][r] = _mm512_setzero_ps();
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, static_cast<int64_t>(stride));
  const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
  const int64_t full = nb / 2;
  for (int64_t c = 0; c < full; ++c) {
    __m512i u[R];
    for (int r = 0; r < R; ++r) {
      const uint8_t* at = Blocks(row0 + r * stride) + c * kChunk;
      u[r] = _mm512_xor_si512(_mm512_loadu_si512(at), bias);
      PrefetchAt(at + ahead, sp.level);  // the first token group streams adjacent rows
    }
    for (int t = 0; t < T; ++t) {
      const XChunk& x = px[t * chunks + c];
      for (int r = 0; r < R; ++r) acc[t][r] = Step(acc[t][r], u[r], x);
    }
  }
  if (nb % 2 == 1) {
    __m512i u[R];
    for (int r = 0; r < R; ++r) u[r] = LoadW(Blocks(row0 + r * stride), full, true);
    for (int t = 0; t < T; ++t) {
      const XChunk& x = px[t * chunks + full];
      for (int r = 0; r < R; ++r) acc[t][r] = Step(acc[t][r], u[r], x);
    }
  }
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = row0 + r * stride;
  ReduceRows<T, R>(acc, rows, out);
}

// One group of g (2..5) prepared tokens over R rows.
template <int R>
inline void PreparedGroup(int g, const XChunk* px, int64_t chunks, int64_t nb, const uint8_t* row0, size_t stride,
                          float* out) {
  switch (g) {
    case 5: PreparedTile<5, R>(px, chunks, nb, row0, stride, out); break;
    case 4: PreparedTile<4, R>(px, chunks, nb, row0, stride, out); break;
    case 3: PreparedTile<3, R>(px, chunks, nb, row0, stride, out); break;
    default: PreparedTile<2, R>(px, chunks, nb, row0, stride, out); break;
  }
}

}  // namespace

void LinearQ8RAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
                         int64_t out, int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / kBlock;
  // The prepared token side of the few-token and batched tiles is bounded (kPreparedBytes a call
  // and thread): a longer batch runs in passes of tokens, each a call of its own.
  const auto pass = [&](int64_t t0, int64_t np) {
    LinearQ8RAvx512Vnni(q + t0 * in, d + t0 * nb, np, in, w, out, o_begin, o_end, y + t0 * ldy, ldy);
  };
  if (RunInPreparedPasses(n, ((nb + 1) / 2) * static_cast<int64_t>(sizeof(XChunk)), pass)) return;
  const size_t stride = Stride(in);
  const auto row = [&](int64_t o) { return w + static_cast<size_t>(o) * stride; };
  // Row blocks keep the weights that several tokens read in L2, a multiple of the tiles' four rows
  // so that no row of a block falls to the one-row tiles (at in = 12,288 a block of 10 rows ran two
  // of them one by one); a lone token reads every row once: one block, so its four streams are as
  // long as the range allows.
  const int64_t by_l2 = static_cast<int64_t>((size_t{128} << 10) / stride) & ~int64_t{3};
  const int64_t row_block = n == 1 ? o_end - o_begin : by_l2 < 4 ? 4 : by_l2;
  float r[16], r20[20];
  // Two or more tokens read the token side prepared once (thread-local scratch, at most kPreparedBytes).
  const int64_t chunks = (nb + 1) / 2;
  thread_local std::vector<XChunk> prepared_buf;
  const XChunk* prepared = nullptr;
  if (n >= 2) {
    const size_t need = static_cast<size_t>(n * chunks);
    if (prepared_buf.size() < need) prepared_buf.resize(need);
    PrepareX(q, d, in, nb, n, prepared_buf.data());
    prepared = prepared_buf.data();
  }
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    // Groups of up to four tokens (five when five are left) over four rows at a time.
    for (int g = 0; t + 2 <= n; t += g) {
      g = n - t == 5 ? 5 : n - t >= 4 ? 4 : static_cast<int>(n - t);
      const XChunk* pt = prepared + t * chunks;
      int64_t o = ob;
      for (; o + 4 <= oe; o += 4) {
        PreparedGroup<4>(g, pt, chunks, nb, row(o), stride, r20);
        for (int k = 0; k < g; ++k) {
          for (int j = 0; j < 4; ++j) y[(t + k) * ldy + o + j] = r20[k * 4 + j];
        }
      }
      for (; o < oe; ++o) {
        PreparedGroup<1>(g, pt, chunks, nb, row(o), stride, r20);
        for (int k = 0; k < g; ++k) y[(t + k) * ldy + o] = r20[k];
      }
    }
    // The 1x4 tiles take one row from each quarter of the block: four sequential streams.
    const int64_t qr = QuarterStreams(oe - ob);
    for (; t < n; ++t) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      for (int64_t j = 0; j < qr; ++j) {
        const int64_t o = ob + j;
        const uint8_t* rows[4] = {row(o), row(o + qr), row(o + 2 * qr), row(o + 3 * qr)};
        Tile<1, 4>(qt, dt, in, nb, rows, r);
        for (int k = 0; k < 4; ++k) y[t * ldy + o + k * qr] = r[k];
      }
      for (int64_t o = ob + 4 * qr; o < oe; ++o) {
        const uint8_t* rows[1] = {row(o)};
        Tile<1, 1>(qt, dt, in, nb, rows, y + t * ldy + o);
      }
    }
  }
}

}  // namespace gemmad::kernels
