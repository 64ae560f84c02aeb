// AVX-512 linear kernels (this file is compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq):
// the AVX2 kernel's structure at 16 lanes per FMA. Four tokens share each weight load (4x2
// tiles), a lone token runs four rows at once (1x4), rows are walked in L2-sized blocks. The last
// in % 16 elements are one masked load (zeros beyond the row), so there is no scalar tail.
// Unaligned loads throughout. bf16 rows are read in pair-split order (see PairSplit below): one
// 64-byte load and one in-lane op per 16 weights, against activations permuted to match.
// Include no header with inline code here beyond intrinsics and the registry's declarations.
// GCC 12 reports the AVX-512 intrinsics' deliberately undefined pass-through operands
// (_mm256_undefined_*) as uninitialised when they are inlined here (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>
#include <cstdlib>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

inline __m512 Load16(const float* p) { return _mm512_loadu_ps(p); }
// The first `count` (< 16) elements, zeros above; masked-off elements are never read.
inline __m512 LoadPart(const float* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
inline __mmask16 TailMask(int64_t count) { return static_cast<__mmask16>((1u << count) - 1u); }

// PairSplit order for bf16 rows. A 64-byte load holds 32 bf16 weights w[i..i+31] as 16 pairs;
// each 32-bit lane k is w[i+2k] in its low half and w[i+2k+1] in its high half, so one in-lane op
// gives each half as f32: lane << 16 is w[i+2k], lane & 0xffff0000 is w[i+2k+1] (bf16 is the top
// half of an f32). Widening with a lane-crossing zero-extension instead costs a shuffle, a shift
// and a 32-byte load per 16 weights, and on AMD Zen 4 kept the batch-1 tile below the read
// ceiling (docs/cpu-performance.md §17). The activations are permuted to match, once per call:
// per block of 32, x'[i+k] = x[i+2k] and x'[i+16+k] = x[i+2k+1] (k < 16), zero past the row, the
// rows padded to a multiple of 32 (PermuteActs). Every bf16 tile (1x4, 4x2, 1x1, and the 4x6 f32
// tiles over a row block widened in this order) then accumulates lane k over the same sequence,
// x'·even then x'·odd per block, so outputs stay batch-invariant; against the f32 path only the
// order of the sums differs.
inline int64_t PaddedIn(int64_t in) { return (in + 31) / 32 * 32; }
inline void SplitPairs(__m512i v, __m512* even, __m512* odd) {
  *even = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
  *odd = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xffff0000u))));
}
inline void LoadPairs(const uint16_t* p, __m512* even, __m512* odd) { SplitPairs(_mm512_loadu_si512(p), even, odd); }
// The first `count` (< 32) weights, zeros above; masked-off weights are never read.
inline void LoadPairsPart(const uint16_t* p, int64_t count, __m512* even, __m512* odd) {
  SplitPairs(_mm512_maskz_loadu_epi16(static_cast<__mmask32>((uint64_t{1} << count) - 1u), p), even, odd);
}
// The de-interleave of one block of 32 activations (k < 16): even = x[2k], odd = x[2k+1].
inline void DeinterleaveActs(__m512 lo, __m512 hi, __m512* even, __m512* odd) {
  const __m512i ie = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i io = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  *even = _mm512_permutex2var_ps(lo, ie, hi);
  *odd = _mm512_permutex2var_ps(lo, io, hi);
}
// Block i (a multiple of 32) of a row of `in` bf16 weights, split: the masked last block when
// fewer than 32 remain.
inline void LoadPairsBlock(const uint16_t* wr, int64_t i, int64_t in, __m512* even, __m512* odd) {
  if (i + 32 <= in) {
    LoadPairs(wr + i, even, odd);
  } else {
    LoadPairsPart(wr + i, in - i, even, odd);
  }
}
// Block i of a token's `in` activations in PairSplit order (zeros past the row).
inline void ActsBlock(const float* xt, int64_t i, int64_t in, __m512* even, __m512* odd) {
  const int64_t left = in - i;
  const __m512 lo = left >= 16 ? _mm512_loadu_ps(xt + i) : _mm512_maskz_loadu_ps(TailMask(left), xt + i);
  const __m512 hi = left >= 32   ? _mm512_loadu_ps(xt + i + 16)
                    : left > 16 ? _mm512_maskz_loadu_ps(TailMask(left - 16), xt + i + 16)
                                : _mm512_setzero_ps();
  DeinterleaveActs(lo, hi, even, odd);
}
// rows x PaddedIn(in) f32 at `out` (64-byte aligned), block by block: block(r, i, &even, &odd).
template <typename Block>
void WritePairSplit(int64_t rows, int64_t in, float* out, Block block) {
  const int64_t ldp = PaddedIn(in);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < ldp; i += 32) {
      __m512 e, o;
      block(r, i, &e, &o);
      _mm512_store_ps(out + r * ldp + i, e);
      _mm512_store_ps(out + r * ldp + i + 16, o);
    }
  }
}
// x [n, in] -> xp [n, PaddedIn(in)] in PairSplit order.
void PermuteActs(const float* x, int64_t n, int64_t in, float* xp) {
  WritePairSplit(n, in, xp, [&](int64_t t, int64_t i, __m512* e, __m512* o) { ActsBlock(x + t * in, i, in, e, o); });
}

// Lane sums of four accumulators, [Σa, Σb, Σc, Σd]: the two 256-bit halves are added lane-wise
// (l_i + l_{i+8}) and the eight sums reduced as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)). Every dot
// product below goes through this one formula, whichever tile computed it, so an output does
// not depend on how many tokens or rows shared the pass (batch-invariant results).
inline __m256 Fold(__m512 a) {
  return _mm512_castps512_ps256(_mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0xEE)));
}
inline __m128 Hsum4(__m512 a, __m512 b, __m512 c, __m512 d) {
  __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(Fold(a), Fold(b)), _mm256_hadd_ps(Fold(c), Fold(d)));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}
inline float Hsum1(__m512 a) { return _mm_cvtss_f32(Hsum4(a, a, a, a)); }

// Software prefetch of the batch-1 tile, per row stream, with the active StreamParams: rows
// shorter than long_row_bytes (q/k/v, gate/up, the LM head at H = 1536) run four rows side by side,
// so the prefetch reaches into the next rows. Their defaults (16 KB / 4 KB ahead into L1) were
// measured on an Intel Xeon (docs/cpu-performance.md): vs no prefetch +16-18% on q_full,
// gate_up_2x, lm_head; E2B bf16 decode at 86.9% of the read roofline.
// One token against four f32 weight rows: four independent FMA chains.
inline void Dot1x4(const float* x, int64_t in, const float* w0, const float* w1, const float* w2, const float* w3,
                   float* out) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  // Prefetch ahead in each row's stream (one line per 64 bytes read).
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in * 4) / 4;
  for (; i + 16 <= in; i += 16) {
    PrefetchAt(w0 + i + ahead, sp.level_bf16);
    PrefetchAt(w1 + i + ahead, sp.level_bf16);
    PrefetchAt(w2 + i + ahead, sp.level_bf16);
    PrefetchAt(w3 + i + ahead, sp.level_bf16);
    __m512 xv = Load16(x + i);
    a0 = _mm512_fmadd_ps(xv, Load16(w0 + i), a0);
    a1 = _mm512_fmadd_ps(xv, Load16(w1 + i), a1);
    a2 = _mm512_fmadd_ps(xv, Load16(w2 + i), a2);
    a3 = _mm512_fmadd_ps(xv, Load16(w3 + i), a3);
  }
  if (i < in) {
    const __mmask16 m = TailMask(in - i);
    __m512 xv = LoadPart(x + i, m);
    a0 = _mm512_fmadd_ps(xv, LoadPart(w0 + i, m), a0);
    a1 = _mm512_fmadd_ps(xv, LoadPart(w1 + i, m), a1);
    a2 = _mm512_fmadd_ps(xv, LoadPart(w2 + i, m), a2);
    a3 = _mm512_fmadd_ps(xv, LoadPart(w3 + i, m), a3);
  }
  _mm_storeu_ps(out, Hsum4(a0, a1, a2, a3));
}

// One token against R bf16 rows in PairSplit order, rows w0 + k·step (k < R): xp is the token's
// permuted activations (PaddedIn(in) of them). One 64-byte line per row and step, so one prefetch
// each. out[k] = token · row k; every row is its own chain with the same steps and Hsum4, so R and
// step change no output.
template <int R>
inline void DotRows(const float* xp, int64_t in, const uint16_t* w0, int64_t step, float* out) {
  static_assert(R % 4 == 0, "reduced four rows at a time");
  __m512 a[R];
#pragma GCC unroll 8
  for (int k = 0; k < R; ++k) a[k] = _mm512_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in * 2) / 2;
  int64_t i = 0;
  for (; i + 32 <= in; i += 32) {
    const __m512 xe = Load16(xp + i), xo = Load16(xp + i + 16);
#pragma GCC unroll 8
    for (int k = 0; k < R; ++k) {
      PrefetchAt(w0 + k * step + i + ahead, sp.level_bf16);
      __m512 e, o;
      LoadPairs(w0 + k * step + i, &e, &o);
      a[k] = _mm512_fmadd_ps(xo, o, _mm512_fmadd_ps(xe, e, a[k]));
    }
  }
  if (i < in) {
    const __m512 xe = Load16(xp + i), xo = Load16(xp + i + 16);
#pragma GCC unroll 8
    for (int k = 0; k < R; ++k) {
      __m512 e, o;
      LoadPairsPart(w0 + k * step + i, in - i, &e, &o);
      a[k] = _mm512_fmadd_ps(xo, o, _mm512_fmadd_ps(xe, e, a[k]));
    }
  }
#pragma GCC unroll 2
  for (int k = 0; k < R; k += 4) _mm_storeu_ps(out + k, Hsum4(a[k], a[k + 1], a[k + 2], a[k + 3]));
}

// Four tokens (activations ldx apart) against two f32 weight rows: eight chains, each weight
// vector loaded once for four tokens. out[k * 2 + r] = token k · row r.
inline void Dot4x2(const float* x, int64_t ldx, int64_t in, const float* w0, const float* w1, float* out) {
  __m512 a[8];
  for (auto& v : a) v = _mm512_setzero_ps();
  int64_t i = 0;
  // The first token group streams the rows from memory: prefetch ahead as Dot1x4 does.
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in * 4) / 4;
  for (; i + 16 <= in; i += 16) {
    PrefetchAt(w0 + i + ahead, sp.level);
    PrefetchAt(w1 + i + ahead, sp.level);
    __m512 v0 = Load16(w0 + i), v1 = Load16(w1 + i);
    for (int k = 0; k < 4; ++k) {
      __m512 xv = Load16(x + k * ldx + i);
      a[k * 2] = _mm512_fmadd_ps(xv, v0, a[k * 2]);
      a[k * 2 + 1] = _mm512_fmadd_ps(xv, v1, a[k * 2 + 1]);
    }
  }
  if (i < in) {
    const __mmask16 m = TailMask(in - i);
    __m512 v0 = LoadPart(w0 + i, m), v1 = LoadPart(w1 + i, m);
    for (int k = 0; k < 4; ++k) {
      __m512 xv = LoadPart(x + k * ldx + i, m);
      a[k * 2] = _mm512_fmadd_ps(xv, v0, a[k * 2]);
      a[k * 2 + 1] = _mm512_fmadd_ps(xv, v1, a[k * 2 + 1]);
    }
  }
  _mm_storeu_ps(out, Hsum4(a[0], a[1], a[2], a[3]));
  _mm_storeu_ps(out + 4, Hsum4(a[4], a[5], a[6], a[7]));
}

// The same for bf16 rows in PairSplit order (permuted activations ldx apart).
inline void Dot4x2(const float* xp, int64_t ldx, int64_t in, const uint16_t* w0, const uint16_t* w1, float* out) {
  __m512 a[8];
  for (auto& v : a) v = _mm512_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in * 2) / 2;
  for (int64_t i = 0; i < in; i += 32) {
    __m512 e0, o0, e1, o1;
    PrefetchAt(w0 + i + ahead, sp.level);
    PrefetchAt(w1 + i + ahead, sp.level);
    LoadPairsBlock(w0, i, in, &e0, &o0);
    LoadPairsBlock(w1, i, in, &e1, &o1);
    for (int k = 0; k < 4; ++k) {
      const __m512 xe = Load16(xp + k * ldx + i), xo = Load16(xp + k * ldx + i + 16);
      a[k * 2] = _mm512_fmadd_ps(xo, o0, _mm512_fmadd_ps(xe, e0, a[k * 2]));
      a[k * 2 + 1] = _mm512_fmadd_ps(xo, o1, _mm512_fmadd_ps(xe, e1, a[k * 2 + 1]));
    }
  }
  _mm_storeu_ps(out, Hsum4(a[0], a[1], a[2], a[3]));
  _mm_storeu_ps(out + 4, Hsum4(a[4], a[5], a[6], a[7]));
}

// One token against one row (leftover rows).
inline float Dot1x1(const float* x, int64_t in, const float* wr) {
  __m512 a = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) a = _mm512_fmadd_ps(Load16(x + i), Load16(wr + i), a);
  if (i < in) {
    const __mmask16 m = TailMask(in - i);
    a = _mm512_fmadd_ps(LoadPart(x + i, m), LoadPart(wr + i, m), a);
  }
  return Hsum1(a);
}
inline float Dot1x1(const float* xp, int64_t in, const uint16_t* wr) {
  __m512 a = _mm512_setzero_ps();
  for (int64_t i = 0; i < in; i += 32) {
    __m512 e, o;
    LoadPairsBlock(wr, i, in, &e, &o);
    a = _mm512_fmadd_ps(Load16(xp + i + 16), o, _mm512_fmadd_ps(Load16(xp + i), e, a));
  }
  return Hsum1(a);
}

// Dot1x1 with the activations in their own order. For bf16 they are permuted block by block on
// the fly (the same sums as Dot1x1 against PermuteActs' output): a lone token's leftover rows, and
// every row when no scratch could be allocated.
inline float Dot1x1Unpermuted(const float* x, int64_t in, const float* wr) { return Dot1x1(x, in, wr); }
inline float Dot1x1Unpermuted(const float* x, int64_t in, const uint16_t* wr) {
  __m512 a = _mm512_setzero_ps();
  for (int64_t i = 0; i < in; i += 32) {
    __m512 e, o, xe, xo;
    LoadPairsBlock(wr, i, in, &e, &o);
    ActsBlock(x, i, in, &xe, &xo);
    a = _mm512_fmadd_ps(xo, o, _mm512_fmadd_ps(xe, e, a));
  }
  return Hsum1(a);
}

// kT tokens against kR weight rows of f32 over the elements [k0, k0 + len) of the rows (row
// stride `in`): kT * kR independent chains, each x vector loaded once for kR rows and each w
// vector once for kT tokens, so the loop is bound by the FMA ports rather than by loads (the 4x2
// tile spends more slots on loads and widening than on FMAs). The chains start from zero (first
// slice) or from `acc`, and end in `acc` or, on the last slice, reduced into
// y[t * ldy + r] = token t · row r. Same per-lane order and Hsum4 reduction as every other tile,
// however the elements are sliced: bit-identical outputs.
template <int kT, int kR>
inline void DotTile(const float* x, int64_t in, int64_t k0, int64_t len, const float* w, __m512* acc, bool first,
                    bool last, float* y, int64_t ldy) {
  __m512 a[kT][kR];
#pragma GCC unroll 32
  for (int t = 0; t < kT; ++t) {
#pragma GCC unroll 32
    for (int r = 0; r < kR; ++r) a[t][r] = first ? _mm512_setzero_ps() : acc[t * kR + r];
  }
  x += k0;
  w += k0;
  int64_t i = 0;
  for (; i + 16 <= len; i += 16) {
    __m512 wv[kR];
#pragma GCC unroll 32
    for (int r = 0; r < kR; ++r) wv[r] = _mm512_loadu_ps(w + r * in + i);
#pragma GCC unroll 32
    for (int t = 0; t < kT; ++t) {
      const __m512 xv = _mm512_loadu_ps(x + t * in + i);
#pragma GCC unroll 32
      for (int r = 0; r < kR; ++r) a[t][r] = _mm512_fmadd_ps(xv, wv[r], a[t][r]);
    }
  }
  if (i < len) {
    const __mmask16 m = TailMask(len - i);
    __m512 wv[kR];
#pragma GCC unroll 32
    for (int r = 0; r < kR; ++r) wv[r] = _mm512_maskz_loadu_ps(m, w + r * in + i);
#pragma GCC unroll 32
    for (int t = 0; t < kT; ++t) {
      const __m512 xv = _mm512_maskz_loadu_ps(m, x + t * in + i);
#pragma GCC unroll 32
      for (int r = 0; r < kR; ++r) a[t][r] = _mm512_fmadd_ps(xv, wv[r], a[t][r]);
    }
  }
  if (!last) {
#pragma GCC unroll 32
    for (int t = 0; t < kT; ++t) {
#pragma GCC unroll 32
      for (int r = 0; r < kR; ++r) acc[t * kR + r] = a[t][r];
    }
    return;
  }
  static_assert(kT * kR % 4 == 0, "reduced four accumulators at a time");
  alignas(16) float s[kT * kR];
#pragma GCC unroll 32
  for (int j = 0; j < kT * kR; j += 4) {
    _mm_store_ps(s + j, Hsum4(a[j / kR][j % kR], a[(j + 1) / kR][(j + 1) % kR], a[(j + 2) / kR][(j + 2) % kR],
                              a[(j + 3) / kR][(j + 3) % kR]));
  }
  for (int t = 0; t < kT; ++t) {
    for (int r = 0; r < kR; ++r) y[t * ldy + r] = s[t * kR + r];
  }
}

// Per-thread scratch (bf16 activations in PairSplit order, a row block of bf16 weights widened to
// f32, the tiles' chains between element slices), malloc'd: no library template may be
// instantiated in this ISA-flagged file.
// Only grows; freed at thread exit.
struct Scratch {
  float* p = nullptr;
  int64_t cap = 0;
  ~Scratch() { std::free(p); }
  float* Get(int64_t count) {
    if (count > cap) {
      std::free(p);
      const auto bytes = static_cast<size_t>((count * 4 + 63) / 64 * 64);
      p = static_cast<float*>(std::aligned_alloc(64, bytes));
      cap = p != nullptr ? count : 0;
    }
    return p;
  }
};

// Rows [0, rows) of bf16 (row stride in) to f32 in PairSplit order, row stride PaddedIn(in) (zeros
// past the row): the f32 tiles over it give the bf16 tiles' sums.
void WidenRowsPairSplit(const uint16_t* w, int64_t rows, int64_t in, float* out) {
  WritePairSplit(rows, in, out,
                 [&](int64_t r, int64_t i, __m512* e, __m512* o) { LoadPairsBlock(w + r * in, i, in, e, o); });
}

constexpr int kTileT = 4, kTileR = 6;
// Batches of at least this many tokens widen a bf16 row block once and run the f32 tiles on it.
constexpr int64_t kWidenMinTokens = 8;

// Elements per slice of the tiles: a row group's slice (kTileR * kSlice f32) stays in L1 while
// all token groups stream past it.
constexpr int64_t kSlice = 512;
// L2 budget of a batch: the f32 row block and the block of tokens that runs against it.
constexpr int64_t kRowBlockBytes = int64_t{512} << 10, kTokenBlockBytes = int64_t{768} << 10;

// The tiles of a row block [ob, oe) whose row r is at wb + (r - ob) * in: groups of four tokens
// take rows [o_grouped, oe) in pairs (4x2, a lone last row 1x1), the remaining 0-3 tokens take
// all rows [ob, oe) in fours (1x4). Token t's activations are at x + t * ldx (ldx = in for f32
// rows, PaddedIn(in) for bf16 rows, whose activations are in PairSplit order) and, in their own
// order, at x_raw + t * in (the same as x for f32): the 0-3 tokens' leftover rows read those
// (Dot1x1Unpermuted for bf16, so the no-scratch path's sums are the ones every test checks).
template <typename W>
void SmallTiles(const float* x, int64_t ldx, const float* x_raw, int64_t n, int64_t in, const W* wb, int64_t ob,
                int64_t o_grouped, int64_t oe, float* y, int64_t ldy) {
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) {
    const float* xt = x + t * ldx;
    int64_t o = o_grouped;
    float r[8];
    for (; o + 2 <= oe; o += 2) {
      Dot4x2(xt, ldx, in, wb + (o - ob) * in, wb + (o + 1 - ob) * in, r);
      for (int k = 0; k < 4; ++k) {
        y[(t + k) * ldy + o] = r[k * 2];
        y[(t + k) * ldy + o + 1] = r[k * 2 + 1];
      }
    }
    for (; o < oe; ++o) {
      for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = Dot1x1(xt + k * ldx, in, wb + (o - ob) * in);
    }
  }
  // The lone tokens' tiles take one row from each of S equal parts of the block (RowStreams: 4,
  // or 8 for long bf16 rows where the table says so), so the weights are read as S long
  // sequential streams.
  const int streams = sizeof(W) == 2 ? RowStreams(ActiveStreamParams(), in * 2) : 4;
  const int64_t q = (oe - ob) / streams;
  for (; t < n; ++t) {
    const float* xt = x + t * ldx;
    for (int64_t j = 0; j < q; ++j) {
      const W* w0 = wb + j * in;
      float r[8];
      if constexpr (sizeof(W) == 2) {
        if (streams == 8) {
          DotRows<8>(xt, in, w0, q * in, r);
        } else {
          DotRows<4>(xt, in, w0, q * in, r);
        }
      } else {
        Dot1x4(xt, in, w0, w0 + q * in, w0 + 2 * q * in, w0 + 3 * q * in, r);
      }
      for (int k = 0; k < streams; ++k) y[t * ldy + ob + j + k * q] = r[k];
    }
    for (int64_t o = ob + streams * q; o < oe; ++o) {
      y[t * ldy + o] = Dot1x1Unpermuted(x_raw + t * in, in, wb + (o - ob) * in);
    }
  }
}

// Rows [ob, oe) of the f32 matrix wf (row r at wf + (r - ob) * in) for all n tokens: the 4x6
// tiles over element slices (chains kept in `acc` between slices: n / 4 * 24 vectors, or nullptr
// when in <= kSlice), then SmallTiles for the rows and tokens they leave.
void BlockF32(const float* x, int64_t n, int64_t in, const float* wf, int64_t ob, int64_t oe, __m512* acc,
              float* y, int64_t ldy) {
  const int64_t groups = n / kTileT;
  int64_t o0 = ob;
  for (; o0 + kTileR <= oe; o0 += kTileR) {
    const float* wr = wf + (o0 - ob) * in;
    for (int64_t k0 = 0; k0 < in; k0 += kSlice) {
      const int64_t len = in - k0 < kSlice ? in - k0 : kSlice;
      const bool first = k0 == 0, last = k0 + len == in;
      for (int64_t g = 0; g < groups; ++g) {
        __m512* chain = acc != nullptr ? acc + g * kTileT * kTileR : nullptr;  // null: one slice, no chains
        DotTile<kTileT, kTileR>(x + g * kTileT * in, in, k0, len, wr, chain, first, last, y + g * kTileT * ldy + o0,
                                ldy);
      }
    }
  }
  SmallTiles(x, in, x, n, in, wf, ob, o0, oe, y, ldy);
}

// Batches of f32 rows (in = the row stride, x [n, in]): rows in L2 blocks, tokens in blocks whose
// activations stay in L2 beside them, all of a token block against one row block before the
// next. For bf16, `rows_f32` widens a row block into `wf` first (PairSplit order, in padded).
// False when the chains' scratch cannot be allocated (the caller runs the small tiles).
template <typename Widen>
bool BatchedF32(const float* x, int64_t n, int64_t in, const float* w, float* wf, Widen widen, int64_t o_begin,
                int64_t o_end, float* y, int64_t ldy) {
  const int64_t rows = kRowBlockBytes / (in * 4) / kTileR * kTileR;
  const int64_t row_block = rows < kTileR ? kTileR : rows;
  const int64_t tokens = kTokenBlockBytes / (in * 4) / kTileT * kTileT;
  const int64_t token_block = tokens < kTileT ? kTileT : tokens;
  thread_local Scratch chains;
  __m512* acc = nullptr;
  if (in > kSlice) {
    const int64_t most = (n < token_block ? n : token_block) / kTileT;
    acc = reinterpret_cast<__m512*>(chains.Get(most * kTileT * kTileR * 16));
    if (acc == nullptr) return false;
  }
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    const float* block = w != nullptr ? w + ob * in : wf;
    if (w == nullptr) widen(ob, oe, wf);
    for (int64_t t0 = 0; t0 < n; t0 += token_block) {
      const int64_t nt = n - t0 < token_block ? n - t0 : token_block;
      BlockF32(x + t0 * in, nt, in, block, ob, oe, acc, y + t0 * ldy, ldy);
    }
  }
  return true;
}

// Row blocks whose weights stay in L2 between the token groups, the small tiles on each (as in
// linear_avx2.cc). A lone token reads every row once: one block, so its four streams are as long
// as the range allows.
template <typename W>
void SmallTileBlocks(const float* x, int64_t ldx, const float* x_raw, int64_t n, int64_t in, const W* w,
                     int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t by_l2 = (int64_t{128} << 10) / (in * static_cast<int64_t>(sizeof(W)));
  const int64_t row_block = n == 1 ? o_end - o_begin : by_l2 < 2 ? 2 : by_l2;
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    SmallTiles(x, ldx, x_raw, n, in, w + ob * in, ob, ob, oe, y, ldy);
  }
}

void LinearF32Avx512(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin, int64_t o_end,
                     float* y, int64_t ldy) {
  auto no_widen = [](int64_t, int64_t, float*) {};
  if (n >= kTileT && BatchedF32(x, n, in, w, nullptr, no_widen, o_begin, o_end, y, ldy)) return;
  SmallTileBlocks(x, in, x, n, in, w, o_begin, o_end, y, ldy);
}

// The permuted activations of one pass: at most this many bytes (a prefill chunk of thousands of
// tokens runs as several passes over the weights, so the per-thread scratch stays bounded).
constexpr int64_t kPermutedBytes = int64_t{16} << 20;

void LinearBf16Avx512(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                      int64_t o_end, float* y, int64_t ldy) {
  thread_local Scratch permuted, widened;
  const int64_t ldp = PaddedIn(in);
  const int64_t most = kPermutedBytes / (ldp * 4) < 1 ? 1 : kPermutedBytes / (ldp * 4);
  float* xp = permuted.Get((n < most ? n : most) * ldp);
  if (xp == nullptr) {  // no scratch: row by row with the activations permuted on the fly (same sums)
    for (int64_t t = 0; t < n; ++t) {
      for (int64_t o = o_begin; o < o_end; ++o) y[t * ldy + o] = Dot1x1Unpermuted(x + t * in, in, w + o * in);
    }
    return;
  }
  // Tokens in passes of at most `most`; every token's outputs are the same in any pass (the
  // tiles are batch-invariant).
  for (int64_t t0 = 0; t0 < n; t0 += most) {
    const int64_t nt = n - t0 < most ? n - t0 : most;
    const float* xt = x + t0 * in;
    float* yt = y + t0 * ldy;
    PermuteActs(xt, nt, in, xp);
    if (nt >= kWidenMinTokens) {
      const int64_t rows = kRowBlockBytes / (ldp * 4) / kTileR * kTileR;
      float* wf = widened.Get((rows < kTileR ? kTileR : rows) * ldp);
      auto widen = [&](int64_t ob, int64_t oe, float* out) { WidenRowsPairSplit(w + ob * in, oe - ob, in, out); };
      if (wf != nullptr && BatchedF32(xp, nt, ldp, nullptr, wf, widen, o_begin, o_end, yt, ldy)) continue;
    }
    SmallTileBlocks(xp, ldp, xt, nt, in, w, o_begin, o_end, yt, ldy);
  }
}

// The file is compiled with F, BW, VL and DQ enabled, so all four are required (and AVX2+FMA
// for the table's AVX2 quantized entries).
bool Avx512Supported() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace

const CpuKernelTable* Avx512CpuKernels() {
  // Quantized Linear: the VNNI kernels (linear_quant_avx512vnni.cc, linear_q4_avx512vnni.cc) where
  // the CPU has AVX512-VNNI, the AVX2 ones otherwise (every AVX-512 CPU runs them; Avx512Supported
  // checks AVX2 too). QuantizeActs must give the same bits in every table anyway.
  static const bool vnni = __builtin_cpu_supports("avx512vnni");
  // FP8: VDPBF16PS over VPERMI2B-decoded weights where the CPU has both (linear_fp8_avx512bf16.cc).
  static const bool bf16_vbmi = __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vbmi");
  static const CpuKernelTable table{.name = "avx512",
                                     .supported = &Avx512Supported,
                                     .linear_f32 = &LinearF32Avx512,
                                     .linear_bf16 = &LinearBf16Avx512,
                                     .softcap = &SoftCapAvx512,
                                     .quantize_int8 = &QuantizeInt8Avx512,
                                     .fake_quant_int8 = &FakeQuantInt8Avx512,
                                     .quantize_acts = &QuantizeActsAvx2,
                                     .linear_q8r = vnni ? &LinearQ8RAvx512Vnni : &LinearQ8RAvx2,
                                     .linear_q4_0 = vnni ? &LinearQ4_0Avx512Vnni : &LinearQ4_0Avx2,
                                     .linear_q4_0x16 = vnni ? &LinearQ4_0x16Avx512Vnni : &LinearQ4_0x16Avx2,
                                     .linear_ggml_q8_0 = vnni ? &LinearGgmlQ8_0Avx512Vnni : &LinearGgmlQ8_0Avx2,
                                     .linear_ggml_q5_0 = vnni ? &LinearGgmlQ5_0Avx512Vnni : &LinearGgmlQ5_0Avx2,
                                     .linear_ggml_q4_k = vnni ? &LinearGgmlQ4_KAvx512Vnni : &LinearGgmlQ4_KAvx2,
                                     .linear_ggml_q6_k = vnni ? &LinearGgmlQ6_KAvx512Vnni : &LinearGgmlQ6_KAvx2,
                                     .linear_f8r = bf16_vbmi ? &LinearF8RAvx512Bf16 : &LinearF8RAvx512,
                                     .linear_lut4r = &LinearLut4RAvx512,
                                     .linear_lut2r = &LinearLut2RAvx512,
                                     .linear_i8br = &LinearI8BRAvx512,
                                     .linear_lut4r_int = vnni ? &LinearLut4RIntAvx512Vnni : &LinearLut4RIntAvx2,
                                     .linear_lut2r_int = vnni ? &LinearLut2RIntAvx512Vnni : &LinearLut2RIntAvx2,
                                     .quantize_row_q8r = &QuantizeRowQ8RAvx2,
                                     .quantize_row_q4_0 = &QuantizeRowQ4_0Avx2,
                                     .gelu_tanh_mul = &GeluTanhMulAvx512,
                                     .exp_shifted = &ExpShiftedAvx512,
                                     .gemm_f32 = &GemmF32Avx512};
  return &table;
}

}  // namespace gemmad::kernels
