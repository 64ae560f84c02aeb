// AVX2 quantized-Linear kernels (compiled with -mavx2 -mfma -mf16c): activation quantization and
// the kQ8R dot products (kQ4_0: linear_q4_avx2.cc). A 32-element block is one 8-bit multiply-add: |w| (unsigned)
// times x·sign(w) (signed) in pairs to int16 (≤ 2·127·127, no saturation), pairs summed to eight
// int32 lanes, converted and accumulated with the block's scale by one FMA. Tiles: a lone token
// runs four rows at once (1x4, one from each quarter of the range), four tokens share each weight
// block (4x2). Every output uses
// the same per-block FMA sequence and the registry's lane reduction, so results are
// batch-invariant. Unaligned loads throughout.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;  // tensor::kQuantBlock

inline __m256i Load32(const int8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Eight int32 partial sums of x·w over one block, as floats.
inline __m256 BlockDot(__m256i x, __m256i w) {
  const __m256i p16 = _mm256_maddubs_epi16(_mm256_sign_epi8(w, w), _mm256_sign_epi8(x, w));
  return _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, _mm256_set1_epi16(1)));
}

// [Σa, Σb, Σc, Σd] with the same formula as linear_avx2.cc.
inline __m128 Hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
  __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// Weight access: the block's int8 values and its scale (1 for kQ8R, whose row scale multiplies
// the finished dot product).
struct Q8RRows {
  static constexpr bool kRowScale = true;
  static size_t Stride(int64_t in) { return sizeof(float) + static_cast<size_t>(in); }
  static const uint8_t* Blocks(const uint8_t* row) { return row + sizeof(float); }
  static __m256i Values(const uint8_t* blocks, int64_t b) {
    return Load32(reinterpret_cast<const int8_t*>(blocks) + b * kBlock);
  }
  static float Scale(const uint8_t*, int64_t) { return 1.0f; }
  static float RowScale(const uint8_t* row) {
    float s;
    std::memcpy(&s, row, sizeof(float));
    return s;
  }
};
// acc <- acc + BlockDot(x, w) · (d_x · d_w): the one per-block step every tile uses.
inline __m256 Step(__m256 acc, __m256i x, __m256i w, float dx, float dw) {
  return _mm256_fmadd_ps(BlockDot(x, w), _mm256_set1_ps(dx * dw), acc);
}

template <typename R>
void Tile1x4(const int8_t* q, const float* d, int64_t nb, const uint8_t* const rows[4], float* out) {
  const uint8_t* b0 = R::Blocks(rows[0]);
  const uint8_t* b1 = R::Blocks(rows[1]);
  const uint8_t* b2 = R::Blocks(rows[2]);
  const uint8_t* b3 = R::Blocks(rows[3]);
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  // The int8 tiles' prefetch of the active StreamParams (distance and level_int8, as on the avx512 table).
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, nb * kBlock + 4);
  for (int64_t b = 0; b < nb; ++b) {
    if (b % 2 == 0) {
      for (const uint8_t* bl : {b0, b1, b2, b3}) PrefetchAt(bl + b * kBlock + ahead, sp.level_int8);
    }
    const __m256i xv = Load32(q + b * kBlock);
    const float dx = d[b];
    a0 = Step(a0, xv, R::Values(b0, b), dx, R::Scale(b0, b));
    a1 = Step(a1, xv, R::Values(b1, b), dx, R::Scale(b1, b));
    a2 = Step(a2, xv, R::Values(b2, b), dx, R::Scale(b2, b));
    a3 = Step(a3, xv, R::Values(b3, b), dx, R::Scale(b3, b));
  }
  float r[4];
  _mm_storeu_ps(r, Hsum4(a0, a1, a2, a3));
  for (int k = 0; k < 4; ++k) out[k] = r[k] * R::RowScale(rows[k]);
}

// Four tokens (rows of q/d with strides in and nb) against two weight rows; out[k * 2 + r].
template <typename R>
void Tile4x2(const int8_t* q, const float* d, int64_t in, int64_t nb, const uint8_t* row0, const uint8_t* row1,
             float* out) {
  const uint8_t* b0 = R::Blocks(row0);
  const uint8_t* b1 = R::Blocks(row1);
  __m256 a[8];
  for (auto& v : a) v = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const __m256i w0 = R::Values(b0, b), w1 = R::Values(b1, b);
    const float s0 = R::Scale(b0, b), s1 = R::Scale(b1, b);
    for (int k = 0; k < 4; ++k) {
      const __m256i xv = Load32(q + k * in + b * kBlock);
      const float dx = d[k * nb + b];
      a[k * 2] = Step(a[k * 2], xv, w0, dx, s0);
      a[k * 2 + 1] = Step(a[k * 2 + 1], xv, w1, dx, s1);
    }
  }
  float r[8];
  _mm_storeu_ps(r, Hsum4(a[0], a[1], a[2], a[3]));
  _mm_storeu_ps(r + 4, Hsum4(a[4], a[5], a[6], a[7]));
  for (int k = 0; k < 4; ++k) {
    out[k * 2] = r[k * 2] * R::RowScale(row0);
    out[k * 2 + 1] = r[k * 2 + 1] * R::RowScale(row1);
  }
}

template <typename R>
float Tile1x1(const int8_t* q, const float* d, int64_t nb, const uint8_t* row) {
  const uint8_t* bl = R::Blocks(row);
  __m256 a = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) a = Step(a, Load32(q + b * kBlock), R::Values(bl, b), d[b], R::Scale(bl, b));
  return _mm_cvtss_f32(Hsum4(a, a, a, a)) * R::RowScale(row);
}

template <typename R>
void LinearQuant(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                 int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / kBlock;
  const size_t stride = R::Stride(in);
  const auto row = [&](int64_t o) { return w + static_cast<size_t>(o) * stride; };
  // Row blocks whose weights stay in L2 while every token group reads them, a multiple of the
  // tiles' two rows so that no row of a block falls to the one-row tiles.
  const int64_t by_l2 = static_cast<int64_t>((size_t{128} << 10) / stride) & ~int64_t{1};
  // A lone token reads every row once: one block, its 1x4 tiles one row from each quarter of the range
  // (QuarterStreams: four long sequential streams). The 1-3 tokens after groups of four read rows
  // the group left in L2: four adjacent ones a tile.
  const bool lone = n == 1;
  const int64_t row_block = lone ? o_end - o_begin : by_l2 < 2 ? 2 : by_l2;
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      int64_t o = ob;
      float r[8];
      for (; o + 2 <= oe; o += 2) {
        Tile4x2<R>(qt, dt, in, nb, row(o), row(o + 1), r);
        for (int k = 0; k < 4; ++k) {
          y[(t + k) * ldy + o] = r[k * 2];
          y[(t + k) * ldy + o + 1] = r[k * 2 + 1];
        }
      }
      for (; o < oe; ++o) {
        for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = Tile1x1<R>(qt + k * in, dt + k * nb, nb, row(o));
      }
    }
    for (; t < n; ++t) {
      const int8_t* qt = q + t * in;
      const float* dt = d + t * nb;
      RowTiles<4>(
          lone, ob, oe,
          [&](int64_t o, int64_t step) {
            const uint8_t* rows[4] = {row(o), row(o + step), row(o + 2 * step), row(o + 3 * step)};
            float r[4];
            Tile1x4<R>(qt, dt, nb, rows, r);
            for (int k = 0; k < 4; ++k) y[t * ldy + o + k * step] = r[k];
          },
          [&](int64_t o) { y[t * ldy + o] = Tile1x1<R>(qt, dt, nb, row(o)); });
    }
  }
}

}  // namespace

void QuantizeActsAvx2(const float* x, int64_t n, int64_t in, int8_t* q, float* d) {
  const int64_t nb = in / kBlock;
  const __m256 sign_mask = _mm256_set1_ps(-0.0f);
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t b = 0; b < nb; ++b) {
      const float* xb = x + t * in + b * kBlock;
      __m256 v[4];
      __m256 m = _mm256_setzero_ps();
      for (int k = 0; k < 4; ++k) {
        v[k] = _mm256_loadu_ps(xb + 8 * k);
        m = _mm256_max_ps(m, _mm256_andnot_ps(sign_mask, v[k]));
      }
      __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
      h = _mm_max_ps(h, _mm_movehl_ps(h, h));
      h = _mm_max_ss(h, _mm_movehdup_ps(h));
      const float scale = _mm_cvtss_f32(h) / 127.0f;
      const __m256 inv = _mm256_set1_ps(scale != 0.0f ? 1.0f / scale : 0.0f);
      // Round half to even (the default MXCSR mode), then pack 32 int32 -> 32 int8 in order.
      __m256i i0 = _mm256_cvtps_epi32(_mm256_mul_ps(v[0], inv)), i1 = _mm256_cvtps_epi32(_mm256_mul_ps(v[1], inv));
      __m256i i2 = _mm256_cvtps_epi32(_mm256_mul_ps(v[2], inv)), i3 = _mm256_cvtps_epi32(_mm256_mul_ps(v[3], inv));
      __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
      p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + t * in + b * kBlock), p);
      d[t * nb + b] = scale;
    }
  }
}

namespace {

inline float HMax(__m256 m) {
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

// 32 int32 in four vectors -> 32 int8 in order (saturating).
inline __m256i Pack32(__m256i i0, __m256i i1, __m256i i2, __m256i i3) {
  const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(i0, i1), _mm256_packs_epi32(i2, i3));
  return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

}  // namespace

void QuantizeRowQ8RAvx2(const float* x, int64_t in, uint8_t* row) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 m = _mm256_setzero_ps();
  for (int64_t i = 0; i < in; i += 8) m = _mm256_max_ps(m, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i)));
  const float d = HMax(m) / 127.0f;
  const __m256 inv = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
  std::memcpy(row, &d, sizeof(float));
  int8_t* q = reinterpret_cast<int8_t*>(row + sizeof(float));
  const __m256i lo = _mm256_set1_epi8(-127);
  for (int64_t i = 0; i < in; i += 32) {
    __m256i v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * k), inv));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_max_epi8(Pack32(v[0], v[1], v[2], v[3]), lo));
  }
}

void QuantizeRowQ4_0Avx2(const float* x, int64_t in, uint8_t* scale, uint8_t* qs, size_t stride) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (int64_t b = 0; b < in / kBlock; ++b) {
    const float* xb = x + b * kBlock;
    __m256 v[4], a[4];
    __m256 m = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
      v[k] = _mm256_loadu_ps(xb + 8 * k);
      a[k] = _mm256_andnot_ps(sign, v[k]);
      m = _mm256_max_ps(m, a[k]);
    }
    const float amax = HMax(m);
    float signed_max = 0.0f;  // the first element of largest magnitude, with its sign
    if (amax > 0.0f) {
      const __m256 am = _mm256_set1_ps(amax);
      uint32_t bits = 0;
      for (int k = 0; k < 4; ++k) {
        bits |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_cmp_ps(a[k], am, _CMP_EQ_OQ))) << (8 * k);
      }
      signed_max = xb[__builtin_ctz(bits)];
    }
    const float d = signed_max / -8.0f;
    const __m256 inv = _mm256_set1_ps(d != 0.0f ? 1.0f / d : 0.0f);
    const __m256 half8 = _mm256_set1_ps(8.5f);
    const __m256i fifteen = _mm256_set1_epi32(15);
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      // x·inv rounded before the + 8.5, as the portable formula: the empty asm keeps GCC from fusing
      // the two into one FMA (it does under -mfma), which rounds once and moved a rare code by one.
      __m256 scaled = _mm256_mul_ps(v[k], inv);
      asm("" : "+x"(scaled));
      q[k] = _mm256_min_epi32(_mm256_cvttps_epi32(_mm256_add_ps(scaled, half8)), fifteen);
    }
    // byte j = q[j] | q[j + 16] << 4: the same lane shuffle for both halves, then bytes in order.
    const __m256i lo = _mm256_packus_epi32(q[0], q[1]), hi = _mm256_packus_epi32(q[2], q[3]);
    const __m256i c16 = _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4));
    const __m256i c8 = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(c16, c16), _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + static_cast<size_t>(b) * stride), _mm256_castsi256_si128(c8));
    const auto h = static_cast<uint16_t>(_cvtss_sh(d, _MM_FROUND_TO_NEAREST_INT));
    std::memcpy(scale + static_cast<size_t>(b) * stride, &h, 2);
  }
}

void LinearQ8RAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t /*out*/,
                   int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  LinearQuant<Q8RRows>(q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
