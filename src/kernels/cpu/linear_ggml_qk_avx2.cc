// AVX2 Linear for the ggml K types Q4_K and Q6_K (compiled with -mavx2 -mfma -mf16c), read in
// place: rows lie one after the other, tensor::RowBytes apart (tensor/ggml_blocks.h). Per row and
// 256-element super-block the block is decoded once into eight registers of unsigned values (one
// per 32-element activation block: Q4_K's nibbles 0..15, Q6_K's 6-bit values 0..63 before the −32
// offset) plus float scale vectors, then every token of the pass (up to eight) meets it:
// vpmaddubsw (unsigned weight × int8 activation; no int16 saturation: 2·63·128 < 2^15) and
// vpmaddwd give each activation block's eight int32 lanes, a vphaddd tree sums them per
// sub-block, and one FMA per eight sub-blocks applies the scales:
//   Q4_K: acc += dot[k] · (d·sc_k · d_x[k]) − (dmin·m_k) · (d_x[k] · Σ_k x)
//     (the minimum term from per-block activation sums prepared once per call);
//   Q6_K: acc += (dot[i] − 32·Σ_i x) · (d·sc_i · d_x[i/2]) over 16-element sub-blocks i, the
//     offset removed in exact int32 with per-16 activation sums prepared once per call.
// Every (token, row) output takes the same steps whatever n and the row range, so results are
// batch- and range-invariant. Tokens run in passes of eight, rows in blocks that stay in L2 when
// there is more than one pass. Batch 1 streams the matrix front to back with a software prefetch.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kSuper = 256;     // elements per super-block
constexpr int64_t kMaxPass = 8;     // tokens per pass over the rows
constexpr int64_t kL2Rows = 256 << 10;  // bytes of rows a block of passes re-reads

inline float F16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// The int32 lane sums of one activation block against unsigned weights: 8 lanes, lanes 0-3 over
// elements 0..15, lanes 4-7 over 16..31.
inline __m256i BlockDot(__m256i w, const int8_t* x) {
  const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w, xv), _mm256_set1_epi16(1));
}

// h(a, b) per 128-bit lane: [Σa0..3, Σb0..3] pairs, so Tree4(p0..p3) = [p0.lo, p1.lo, p2.lo,
// p3.lo | p0.hi, p1.hi, p2.hi, p3.hi] (lo/hi: a block's first/second 16 elements).
inline __m256i Tree4(__m256i p0, __m256i p1, __m256i p2, __m256i p3) {
  return _mm256_hadd_epi32(_mm256_hadd_epi32(p0, p1), _mm256_hadd_epi32(p2, p3));
}

inline float HSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

// Q4_K's eight 6-bit (scale, min) pairs (spec §4.2) from the 12 bytes at p (16 are read: the
// block goes on) as bytes [sc0..sc7, m0..m7]. Words u0, u1, u2: sc0..3 = u0 & 63, m0..3 = u1 & 63,
// sc4..7 = (u2 & 15) | (u0 >> 6) << 4, m4..7 = (u2 >> 4) | (u1 >> 6) << 4 (per byte).
inline __m128i ScalesMins(const uint8_t* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i a = _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 1, 2, 0));  // [u0, u2, u1, u2]
  const __m128i b = _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 1, 0, 0));  // [u0, u0, u1, u1]
  const __m128i low = _mm_and_si128(a, _mm_set1_epi8(0x3f));
  const __m128i high = _mm_or_si128(_mm_and_si128(_mm_srlv_epi32(a, _mm_setr_epi32(0, 0, 0, 4)), _mm_set1_epi8(0x0f)),
                                    _mm_slli_epi32(_mm_and_si128(_mm_srli_epi32(b, 6), _mm_set1_epi8(0x03)), 4));
  return _mm_blend_epi32(low, high, 0xA);
}

// Q4_K: {f16 d; f16 dmin; uint8 scales[12]; uint8 qs[128]}; sub-block k (32 elements) is the low
// (k even) or high (k odd) nibbles of qs[32·(k/2) ..], scaled d·sc_k, minus dmin·m_k.
struct Q4K {
  static constexpr int64_t kBytes = 144;
  static constexpr int64_t kAuxPerSuper = 8;  // d_x[b]·Σ_b x per activation block
  using Aux = float;
  struct W {
    __m256i q[8];
    __m256 sc, mn;  // d·sc_k, dmin·m_k
  };
  static void Prepare(const int8_t* q, const float* d, int64_t in, Aux* aux) {
    for (int64_t b = 0; b < in / 32; ++b) {
      int32_t s = 0;
      for (int j = 0; j < 32; ++j) s += q[b * 32 + j];
      aux[b] = d[b] * static_cast<float>(s);
    }
  }
  static void Decode(const uint8_t* blk, W* w) {
    const __m128i s = ScalesMins(blk + 4);
    w->sc = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(s)), _mm256_set1_ps(F16(blk)));
    w->mn = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(s, 8))),
                          _mm256_set1_ps(F16(blk + 2)));
    const __m256i m = _mm256_set1_epi8(15);
    for (int j = 0; j < 4; ++j) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 16 + 32 * j));
      w->q[2 * j] = _mm256_and_si256(v, m);
      w->q[2 * j + 1] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);
    }
  }
  // One token: x the super-block's 256 activations, dx its 8 block scales, aux its 8 Aux values.
  static __m256 Step(__m256 acc, const W& w, const int8_t* x, const float* dx, const Aux* aux) {
    __m256i p[8];
    for (int k = 0; k < 8; ++k) p[k] = BlockDot(w.q[k], x + 32 * k);
    const __m256i a = Tree4(p[0], p[1], p[2], p[3]), b = Tree4(p[4], p[5], p[6], p[7]);
    const __m256i dot = _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(w.sc, _mm256_loadu_ps(dx)), acc);
    return _mm256_fnmadd_ps(w.mn, _mm256_loadu_ps(aux), acc);
  }
};

// Q6_K: {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d}; sub-block i (16 elements) is
// d·scales[i]·(q − 32), q = 4 low bits | 2 high bits << 4. The tree leaves sub-blocks in the order
// [0 2 4 6 1 3 5 7] (first four blocks) and [8 10 12 14 9 11 13 15]; scales and sums follow it.
struct Q6K {
  static constexpr int64_t kBytes = 210;
  static constexpr int64_t kAuxPerSuper = 16;  // 32·Σ x per sub-block, in the tree's order
  using Aux = int32_t;
  struct W {
    __m256i q[8];
    __m256 sa, sb;  // d·scales in the tree's order
  };
  static void Prepare(const int8_t* q, const float*, int64_t in, Aux* aux) {
    static constexpr int kOrder[16] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
    for (int64_t s = 0; s < in / kSuper; ++s) {
      for (int i = 0; i < 16; ++i) {
        int32_t sum = 0;
        for (int j = 0; j < 16; ++j) sum += q[s * kSuper + kOrder[i] * 16 + j];
        aux[s * 16 + i] = 32 * sum;
      }
    }
  }
  static void Decode(const uint8_t* blk, W* w) {
    const __m256i lo4 = _mm256_set1_epi8(15), hi2 = _mm256_set1_epi8(0x30);
    for (int h = 0; h < 2; ++h) {
      const __m256i l0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * h));
      const __m256i l1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 64 * h + 32));
      const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 128 + 32 * h));
      w->q[4 * h + 0] = _mm256_or_si256(_mm256_and_si256(l0, lo4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), hi2));
      w->q[4 * h + 1] = _mm256_or_si256(_mm256_and_si256(l1, lo4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), hi2));
      w->q[4 * h + 2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), lo4), _mm256_and_si256(qh, hi2));
      w->q[4 * h + 3] =
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), lo4), _mm256_and_si256(_mm256_srli_epi16(qh, 2), hi2));
    }
    const __m128i sc = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 192)),
                                        _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15));
    const __m256 d = _mm256_set1_ps(F16(blk + 208));
    w->sa = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(sc)), d);
    w->sb = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(sc, 8))), d);
  }
  static __m256 Step(__m256 acc, const W& w, const int8_t* x, const float* dx, const Aux* aux) {
    __m256i p[8];
    for (int k = 0; k < 8; ++k) p[k] = BlockDot(w.q[k], x + 32 * k);
    const __m256i a = _mm256_sub_epi32(Tree4(p[0], p[1], p[2], p[3]), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(aux)));
    const __m256i b =
        _mm256_sub_epi32(Tree4(p[4], p[5], p[6], p[7]), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(aux + 8)));
    const __m256 dxa = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(dx));  // [dx0..3 | dx0..3]
    const __m256 dxb = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(dx + 4));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a), _mm256_mul_ps(w.sa, dxa), acc);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(b), _mm256_mul_ps(w.sb, dxb), acc);
  }
};

// T tokens (q/d/aux rows t·in, t·nb, t·naux apart) × rows [o_begin, o_end).
template <class K, int T>
void Pass(const int8_t* q, const float* d, const typename K::Aux* aux, int64_t in, const uint8_t* w, int64_t o_begin,
          int64_t o_end, float* y, int64_t ldy) {
  const int64_t ns = in / kSuper, nb = in / 32, naux = ns * K::kAuxPerSuper;
  const int64_t row_bytes = ns * K::kBytes;
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, row_bytes);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + o * row_bytes;
    __m256 acc[T];
    for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
    for (int64_t s = 0; s < ns; ++s) {
      const uint8_t* blk = row + s * K::kBytes;
      for (int64_t at = 0; at < K::kBytes; at += 64) {
        PrefetchAt(reinterpret_cast<const char*>(blk) + ahead + at, sp.level);
      }
      typename K::W dec;
      K::Decode(blk, &dec);
      for (int t = 0; t < T; ++t) {
        acc[t] = K::Step(acc[t], dec, q + t * in + s * kSuper, d + t * nb + s * 8, aux + t * naux + s * K::kAuxPerSuper);
      }
    }
    for (int t = 0; t < T; ++t) y[t * ldy + o] = HSum(acc[t]);
  }
}

template <class K>
void Run(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
         float* y, int64_t ldy) {
  const int64_t ns = in / kSuper, nb = in / 32, naux = ns * K::kAuxPerSuper;
  thread_local std::vector<typename K::Aux> aux;
  aux.resize(static_cast<size_t>(n * naux));
  for (int64_t t = 0; t < n; ++t) K::Prepare(q + t * in, d + t * nb, in, aux.data() + t * naux);
  // One pass streams the rows once; several re-read blocks of rows that stay in L2.
  const int64_t by_l2 = kL2Rows / (ns * K::kBytes);
  const int64_t block = n <= kMaxPass ? o_end - o_begin : (by_l2 < 1 ? 1 : by_l2);
  for (int64_t ob = o_begin; ob < o_end; ob += block) {
    const int64_t oe = ob + block < o_end ? ob + block : o_end;
    for (int64_t t = 0; t < n; t += kMaxPass) {
      const int64_t tn = n - t < kMaxPass ? n - t : kMaxPass;
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      const typename K::Aux* at = aux.data() + t * naux;
      float* yt = y + t * ldy;
      switch (tn) {
        case 1: Pass<K, 1>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 2: Pass<K, 2>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 3: Pass<K, 3>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 4: Pass<K, 4>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 5: Pass<K, 5>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 6: Pass<K, 6>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        case 7: Pass<K, 7>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
        default: Pass<K, 8>(qt, dt, at, in, w, ob, oe, yt, ldy); break;
      }
    }
  }
}

}  // namespace

void LinearGgmlQ4_KAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q4K>(q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ6_KAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q6K>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
