// FP8 Linear, AVX2 (kernels/registry.h LinearF8Fn): the AVX-512 kernel's widening (the 7 magnitude
// bits into an fp32 exponent/mantissa scaled by 2^120, the sign to bit 31; NaN codes read as ±480)
// 8 bytes at a time, up to 4 tokens per pass over a row (a lone token: four rows per pass, one from
// each quarter of the range); a scalar tail for rows that are not a multiple of 8 long.
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

inline __m256 Decode8(const uint8_t* p) {
  int64_t raw;
  std::memcpy(&raw, p, 8);
  const __m256i u = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(raw));
  const __m256i mag = _mm256_slli_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7F)), 20);
  const __m256 f = _mm256_mul_ps(_mm256_castsi256_ps(mag), _mm256_set1_ps(0x1p120f));
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x80)), 24);
  return _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(f), sign));
}

template <int T>
void RowTile(const float* xq, int64_t in, const uint8_t* q, float* acc_out) {
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    const __m256 wv = Decode8(q + i);
    for (int t = 0; t < T; ++t) acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(xq + t * in + i), wv, acc[t]);
  }
  for (int t = 0; t < T; ++t) {
    float a = Sum8(acc[t]);
    for (int64_t j = i; j < in; ++j) a += xq[t * in + j] * tensor::E4M3ToFloat(q[j]);
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
  for (; i + 8 <= in; i += 8) {
    if (i % 64 == 0) {
      for (int r = 0; r < R; ++r) PrefetchAt(rows[r] + sizeof(float) + i + ahead, sp.level_ct);
    }
    const __m256 xv = _mm256_loadu_ps(x + i);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_fmadd_ps(xv, Decode8(rows[r] + sizeof(float) + i), acc[r]);
  }
  for (int r = 0; r < R; ++r) {
    float a = Sum8(acc[r]);
    const uint8_t* q = rows[r] + sizeof(float);
    for (int64_t j = i; j < in; ++j) a += x[j] * tensor::E4M3ToFloat(q[j]);
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
      y[o] = acc * d * s[0];
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
      for (int64_t t = 0; t < m; ++t) y[(t0 + t) * ldy + o] = acc[t] * d * s[t0 + t];
    }
  }
}

}  // namespace gemmad::kernels
