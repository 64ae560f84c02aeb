// AVX-512 VNNI Linear for the ggml K types Q4_K and Q6_K (compiled with -mavx512f -mavx512bw
// -mavx512vl -mavx512dq -mavx512vnni -mfma -mf16c; the avx512 table uses it where the CPU has VNNI).
// The rows are read in place as linear_ggml_qk_avx2.cc reads them (same passes of up to eight
// tokens, L2 row blocks and prefetch; read that file's comment), with 512-bit steps: per row and
// 256-element super-block the block is decoded once into four registers of unsigned values, each
// two activation blocks (64 contiguous activations) wide, and for every token of the pass:
// four VPDPBUSD (unsigned weight × int8 activation, exact int32 lanes), then two levels of
// even/odd lane pairing (VPERMT2D, add) fold the 64 lanes into 16 that keep sub-blocks apart:
//   Q4_K: lanes 2k, 2k+1 hold halves of sub-block k's sum; acc += sum · (d·sc_k)·d_x[k] −
//     (dmin·m_k)·(d_x[k]·Σ_k x) (the minimum once per sub-block: the activation side carries it
//     in even lanes, 0 in odd ones);
//   Q6_K: lane i holds sub-block i's sum (16 elements); acc += (sum − 32·Σ_i x) · (d·scales[i]) ·
//     d_x[i/2], the offset removed exactly (integers below 2^24 in f32).
// The activation side (d_x per lane, the Σx terms) is prepared once per call, 32 floats per
// super-block and token. Every (token, row) output takes the same steps whatever n and the row
// range, so results are batch- and range-invariant (they differ from the AVX2 kernels' in the
// float summation order only). GCC 12 reports the AVX-512 intrinsics' undefined pass-through
// operands as uninitialised (GCC bug 105593).
#include "kernels/cpu/avx512_intrinsics.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/registry.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kSuper = 256;         // elements per super-block
constexpr int64_t kMaxPass = 8;         // tokens per pass over the rows
constexpr int64_t kL2Rows = 256 << 10;  // bytes of rows a block of passes re-reads
constexpr int64_t kAuxPerSuper = 32;    // activation-side floats per super-block and token

inline float F16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return _cvtsh_ss(h);
}

// Even and odd lanes of (a, b): lanes 0..7 from a, 8..15 from b.
inline __m512i PairFold(__m512i a, __m512i b) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_add_epi32(_mm512_permutex2var_epi32(a, even, b), _mm512_permutex2var_epi32(a, odd, b));
}

// The four chunks' exact int32 sums folded to 16 lanes: lane pairs (2m, 2m+1) of the result hold
// the sums of lanes 8m..8m+7 of the 64 (chunk c covers lanes 16c..16c+15).
inline __m512i Fold(const __m512i* w, const int8_t* x) {
  __m512i v[4];
  for (int c = 0; c < 4; ++c) {
    v[c] = _mm512_dpbusd_epi32(_mm512_setzero_si512(), w[c], _mm512_loadu_si512(x + 64 * c));
  }
  return PairFold(PairFold(v[0], v[1]), PairFold(v[2], v[3]));
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
// (k even) or high (k odd) nibbles of qs[32·(k/2) ..], scaled d·sc_k, minus dmin·m_k. Chunk c
// holds sub-blocks 2c (low 256 bits) and 2c+1, so sub-block k lands in lanes 2k, 2k+1.
struct Q4K {
  static constexpr int64_t kBytes = 144;
  struct W {
    __m512i q[4];
    __m512 sc, mn;  // d·sc_k, dmin·m_k in lanes 2k, 2k+1
  };
  // Per super-block: d_x[k] in lanes 2k, 2k+1; then d_x[k]·Σ_k x in lane 2k, 0 in 2k+1.
  static void Prepare(const int8_t* q, const float* d, int64_t in, float* aux) {
    for (int64_t b = 0; b < in / 32; ++b) {
      int32_t s = 0;
      for (int j = 0; j < 32; ++j) s += q[b * 32 + j];
      float* a = aux + (b / 8) * kAuxPerSuper;
      const int64_t k = b % 8;
      a[2 * k] = a[2 * k + 1] = d[b];
      a[16 + 2 * k] = d[b] * static_cast<float>(s);
      a[16 + 2 * k + 1] = 0.0f;
    }
  }
  static void Decode(const uint8_t* blk, W* w) {
    const __m128i s = ScalesMins(blk + 4);
    const __m512i dup = _mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512 sm = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(s));  // scales 0..7, mins 0..7
    w->sc = _mm512_mul_ps(_mm512_permutexvar_ps(dup, sm), _mm512_set1_ps(F16(blk)));
    w->mn = _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_add_epi32(dup, _mm512_set1_epi32(8)), sm),
                          _mm512_set1_ps(F16(blk + 2)));
    const __m512i m = _mm512_set1_epi8(15);
    for (int c = 0; c < 4; ++c) {
      const __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 16 + 32 * c)));
      w->q[c] = _mm512_and_si512(_mm512_mask_srli_epi16(v, 0xFFFF0000u, v, 4), m);
    }
  }
  static __m512 Step(__m512 acc, const W& w, const int8_t* x, const float* aux) {
    const __m512i sum = Fold(w.q, x);
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sum), _mm512_mul_ps(w.sc, _mm512_loadu_ps(aux)), acc);
    return _mm512_fnmadd_ps(w.mn, _mm512_loadu_ps(aux + 16), acc);
  }
};

// Q6_K: {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d}; sub-block i (16 elements) is
// d·scales[i]·(q − 32), q = 4 low bits | 2 high bits << 4. Chunk c holds sub-blocks 4c..4c+3 in
// its quarters, so sub-block i lands in lane i.
struct Q6K {
  static constexpr int64_t kBytes = 210;
  struct W {
    __m512i q[4];
    __m512 sc;  // d·scales[i] in lane i
  };
  // Per super-block: d_x[i/2] in lane i; then 32·Σ_i x.
  static void Prepare(const int8_t* q, const float* d, int64_t in, float* aux) {
    for (int64_t i = 0; i < in / 16; ++i) {
      int32_t s = 0;
      for (int j = 0; j < 16; ++j) s += q[i * 16 + j];
      float* a = aux + (i / 16) * kAuxPerSuper;
      a[i % 16] = d[i / 2];
      a[16 + i % 16] = static_cast<float>(32 * s);
    }
  }
  static void Decode(const uint8_t* blk, W* w) {
    const __m512i lo4 = _mm512_set1_epi8(15), hi2 = _mm512_set1_epi8(0x30);
    // Bits 0-1 / 2-3 of qh byte j go to bits 4-5 of elements j / j+32 (low half: shift left 4 /
    // 2), bits 4-5 / 6-7 to elements j+64 / j+96 (high half: shift right 0 / 2).
    const __m512i shl_w = _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(2), 1);
    const __m512i shr_w = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
    for (int h = 0; h < 2; ++h) {
      const __m512i l = _mm512_loadu_si512(blk + 64 * h);  // [ql j | ql j+32]
      const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 128 + 32 * h)));
      w->q[2 * h] = _mm512_or_si512(_mm512_and_si512(l, lo4), _mm512_and_si512(_mm512_sllv_epi16(qh, shl_w), hi2));
      w->q[2 * h + 1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(l, 4), lo4),
                                        _mm512_and_si512(_mm512_srlv_epi16(qh, shr_w), hi2));
    }
    w->sc = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 192)))),
                          _mm512_set1_ps(F16(blk + 208)));
  }
  static __m512 Step(__m512 acc, const W& w, const int8_t* x, const float* aux) {
    const __m512 sum = _mm512_sub_ps(_mm512_cvtepi32_ps(Fold(w.q, x)), _mm512_loadu_ps(aux + 16));
    return _mm512_fmadd_ps(sum, _mm512_mul_ps(w.sc, _mm512_loadu_ps(aux)), acc);
  }
};

// T tokens (q/aux rows t·in, t·naux apart) × rows [o_begin, o_end).
template <class K, int T>
void Pass(const int8_t* q, const float* aux, int64_t in, const uint8_t* w, int64_t o_begin,
          int64_t o_end, float* y, int64_t ldy) {
  const int64_t ns = in / kSuper, naux = ns * kAuxPerSuper;
  const int64_t row_bytes = ns * K::kBytes;
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, row_bytes);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + o * row_bytes;
    __m512 acc[T];
    for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t s = 0; s < ns; ++s) {
      const uint8_t* blk = row + s * K::kBytes;
      for (int64_t at = 0; at < K::kBytes; at += 64) {
        PrefetchAt(reinterpret_cast<const char*>(blk) + ahead + at, sp.level);
      }
      typename K::W dec;
      K::Decode(blk, &dec);
      for (int t = 0; t < T; ++t) {
        acc[t] = K::Step(acc[t], dec, q + t * in + s * kSuper, aux + t * naux + s * kAuxPerSuper);
      }
    }
    for (int t = 0; t < T; ++t) y[t * ldy + o] = _mm512_reduce_add_ps(acc[t]);
  }
}

template <class K>
void Run(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
         float* y, int64_t ldy) {
  const int64_t ns = in / kSuper, nb = in / 32, naux = ns * kAuxPerSuper;
  thread_local std::vector<float> aux;
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
      const float* at = aux.data() + t * naux;
      float* yt = y + t * ldy;
      switch (tn) {
        case 1: Pass<K, 1>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 2: Pass<K, 2>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 3: Pass<K, 3>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 4: Pass<K, 4>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 5: Pass<K, 5>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 6: Pass<K, 6>(qt, at, in, w, ob, oe, yt, ldy); break;
        case 7: Pass<K, 7>(qt, at, in, w, ob, oe, yt, ldy); break;
        default: Pass<K, 8>(qt, at, in, w, ob, oe, yt, ldy); break;
      }
    }
  }
}

}  // namespace

void LinearGgmlQ4_KAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q4K>(q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ6_KAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run<Q6K>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
