// FP8 Linear, AVX2 (kernels/registry.h LinearF8Fn): each code widened through f16 as the AVX-512
// kernel does (below), 16 bytes at a time, up to 4 tokens per pass over a row (a lone token: four rows
// per pass, one from each quarter of the range); a scalar tail for rows that are not a multiple of 8
// long.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "kernels/cpu/avx2_sum.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"
#include "tensor/fp8.h"

namespace gemmad::kernels {
namespace {

constexpr int kTile = 4;

// The codes widen to w · 2^-8 as f16 (F16C, every AVX2 CPU has it), exactly: the sign to bit 15 and
// the 7 magnitude bits to bits 13..7 (e4m3's exponent bias 7 against f16's 15, subnormals included;
// NaN codes read as ±480 · 2^-8), then VCVTPH2PS: 3 integer ops per 16 codes (a sign extension puts
// the sign on bits 15 and 14, the mask clears 14) and one conversion per 8, where building the fp32
// bits took 7 ops per 8. Products and sums carry the exact 2^-8 along, and the row's result is
// multiplied back by 2^8 first, so every output is the bits an fp32 widening gives.
constexpr float kUnscale = 256.0f;

inline __m256i Half16(const uint8_t* p) {
  const __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_and_si256(_mm256_slli_epi16(b, 7), _mm256_set1_epi16(static_cast<int16_t>(0xBFFF)));
}

inline __m256 Decode8(const uint8_t* p) {
  const __m128i b = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  return _mm256_cvtph_ps(_mm_and_si128(_mm_slli_epi16(b, 7), _mm_set1_epi16(static_cast<int16_t>(0xBFFF))));
}

// The scalar tail's weight, scaled alike.
inline float Scaled(uint8_t code) { return tensor::E4M3ToFloat(code) * (1.0f / kUnscale); }

template <int T>
void RowTile(const float* xq, int64_t in, const uint8_t* q, float* acc_out) {
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) {
    const __m256i h = Half16(q + i);
    const __m256 lo = _mm256_cvtph_ps(_mm256_castsi256_si128(h)), hi = _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1));
    for (int t = 0; t < T; ++t) {
      acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xq + t * in + i), lo, acc[t]);
      acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xq + t * in + i + 8), hi, acc[t]);
    }
  }
  for (; i + 8 <= in; i += 8) {
    const __m256 wv = Decode8(q + i);
    for (int t = 0; t < T; ++t) acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xq + t * in + i), wv, acc[t]);
  }
  for (int t = 0; t < T; ++t) {
    float a = Sum8(acc[t]);
    for (int64_t j = i; j < in; ++j) a += xq[t * in + j] * Scaled(q[j]);
    acc_out[t] = a;
  }
}

// One token against R rows (rows[r]'s codes at rows[r] + 4): R independent FMA chains, each row
// summed as RowTile<1> sums it (8-wide in element order, Sum8, then the tail), so a row's result
// does not depend on its company. Prefetched as the avx512 table's compressed-tensors tiles.
template <int R>
void RowsTile(const float* x, int64_t in, const uint8_t* const* rows, float* out) {
  __m256 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in + 4);
  int64_t i = 0;
  for (; i + 16 <= in; i += 16) {
    if (i % 64 == 0) {
      for (int r = 0; r < R; ++r) PrefetchAt(rows[r] + sizeof(float) + i + ahead, sp.level_ct);
    }
    const __m256 xlo = _mm256_loadu_ps(x + i), xhi = _mm256_loadu_ps(x + i + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256i h = Half16(rows[r] + sizeof(float) + i);
      acc[r] = _mm256_fmadd_ps(xlo, _mm256_cvtph_ps(_mm256_castsi256_si128(h)), acc[r]);
      acc[r] = _mm256_fmadd_ps(xhi, _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1)), acc[r]);
    }
  }
  for (; i + 8 <= in; i += 8) {
    const __m256 xv = _mm256_loadu_ps(x + i);
    for (int r = 0; r < R; ++r) acc[r] = _mm256_fmadd_ps(xv, Decode8(rows[r] + sizeof(float) + i), acc[r]);
  }
  for (int r = 0; r < R; ++r) {
    float a = Sum8(acc[r]);
    const uint8_t* q = rows[r] + sizeof(float);
    for (int64_t j = i; j < in; ++j) a += x[j] * Scaled(q[j]);
    out[r] = a;
  }
}

}  // namespace

void LinearF8RAvx2(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                   int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::RowBytes(tensor::DType::kF8R, in);
  if (n == 1) {
    // A lone token: four rows a tile, one from each quarter of the range (stream_prefetch.h RowTiles:
    // four long sequential streams, four FMA chains instead of one), the rows left over one by one.
    const auto row = [&](int64_t o) { return w + static_cast<size_t>(o) * stride; };
    const auto scaled = [&](int64_t o, float acc) {
      float d;
      std::memcpy(&d, row(o), sizeof(float));
      y[o] = acc * kUnscale * d * s[0];
    };
    RowTiles<4>(
        true, o_begin, o_end,
        [&](int64_t o, int64_t step) {
          const uint8_t* rows[4] = {row(o), row(o + step), row(o + 2 * step), row(o + 3 * step)};
          float acc[4];
          RowsTile<4>(xq, in, rows, acc);
          for (int k = 0; k < 4; ++k) scaled(o + k * step, acc[k]);
        },
        [&](int64_t o) {
          float acc;
          RowTile<1>(xq, in, row(o) + sizeof(float), &acc);
          scaled(o, acc);
        });
    return;
  }
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    float d;
    std::memcpy(&d, row, sizeof(float));
    const uint8_t* q = row + sizeof(float);
    float acc[kTile];
    for (int64_t t0 = 0; t0 < n; t0 += kTile) {
      const int64_t m = std::min<int64_t>(kTile, n - t0);
      const float* x = xq + t0 * in;
      switch (m) {
        case 4: RowTile<4>(x, in, q, acc); break;
        case 3: RowTile<3>(x, in, q, acc); break;
        case 2: RowTile<2>(x, in, q, acc); break;
        default: RowTile<1>(x, in, q, acc); break;
      }
      for (int64_t t = 0; t < m; ++t) y[(t0 + t) * ldy + o] = acc[t] * kUnscale * d * s[t0 + t];
    }
  }
}

}  // namespace gemmad::kernels
