// kI8BR Linear, AVX2 (kernels/registry.h LinearLutFn; tensor/i8b_rows.h): 8 int8 weights
// sign-extend, convert, take the row scale and round to bf16 in the integer lanes
// (tensor::FloatToBf16's rounding for finite values), one FMA per token; up to 4 tokens per pass
// over a row. Every (token, row) sums 8-wide in element order, then a horizontal add, then the tail
// (in % 8) in element order: the same in every pass, so batch-invariant. A lone token takes four
// rows per pass instead, one from each quarter of the range.
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/avx2_sum.h"
#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "tensor/i8b_rows.h"

namespace gemmad::kernels {
namespace {

constexpr int kTile = 4;

// The 8 weights at q + i times the row scale, rounded to bf16 (as RowTile takes them).
inline __m256 Weights8(const uint8_t* q, int64_t i, __m256 s) {
  int64_t raw;
  std::memcpy(&raw, q + i, 8);
  const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(raw)));
  const __m256i b = _mm256_castps_si256(_mm256_mul_ps(v, s));
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
  const __m256i r = _mm256_add_epi32(b, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7FFF)));
  return _mm256_castsi256_ps(_mm256_and_si256(r, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// One token against R rows: R independent FMA chains, each row summed as RowTile<1> sums it, so a
// row's result does not depend on its company. Prefetched as the avx512 table's compressed-tensors
// tiles.
template <int R>
void RowsTile(const float* x, int64_t in, const uint8_t* const* rows, float* out) {
  __m256 acc[R], s[R];
  for (int r = 0; r < R; ++r) {
    acc[r] = _mm256_setzero_ps();
    s[r] = _mm256_set1_ps(tensor::I8BRowScale(rows[r]));
  }
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytesInt8(sp, tensor::kI8BHeadBytes + in);
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    if (i % 64 == 0) {
      for (int r = 0; r < R; ++r) PrefetchAt(rows[r] + tensor::kI8BHeadBytes + i + ahead, sp.level_ct);
    }
    const __m256 xv = _mm256_loadu_ps(x + i);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm256_fmadd_ps(xv, Weights8(rows[r] + tensor::kI8BHeadBytes, i, s[r]), acc[r]);
    }
  }
  for (int r = 0; r < R; ++r) {
    float v = Sum8(acc[r]);
    for (int64_t j = i; j < in; ++j) v += x[j] * tensor::I8BRowElement(rows[r], j);
    out[r] = v;
  }
}

template <int T>
void RowTile(const float* x, int64_t in, const uint8_t* row, float* out) {
  const float scale = tensor::I8BRowScale(row);
  const __m256 s = _mm256_set1_ps(scale);
  const uint8_t* q = row + tensor::kI8BHeadBytes;
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    const __m256 wv = Weights8(q, i, s);
    for (int t = 0; t < T; ++t) acc[t] = _mm256_fmadd_ps(_mm256_loadu_ps(x + t * in + i), wv, acc[t]);
  }
  for (int t = 0; t < T; ++t) {
    float v = Sum8(acc[t]);
    for (int64_t j = i; j < in; ++j) v += x[t * in + j] * tensor::I8BRowElement(row, j);
    out[t] = v;
  }
}

}  // namespace

void LinearI8BRAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                    float* y, int64_t ldy) {
  const size_t stride = tensor::kI8BHeadBytes + static_cast<size_t>(in);
  if (n == 1) {
    // A lone token: four rows a tile, one from each quarter of the range (stream_prefetch.h RowTiles:
    // four long sequential streams, four FMA chains instead of one), the rows left over one by one.
    const auto row = [&](int64_t o) { return w + static_cast<size_t>(o) * stride; };
    RowTiles<4>(
        true, o_begin, o_end,
        [&](int64_t o, int64_t step) {
          const uint8_t* rows[4] = {row(o), row(o + step), row(o + 2 * step), row(o + 3 * step)};
          float out[4];
          RowsTile<4>(x, in, rows, out);
          for (int k = 0; k < 4; ++k) y[o + k * step] = out[k];
        },
        [&](int64_t o) { RowTile<1>(x, in, row(o), y + o); });
    return;
  }
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    int64_t t = 0;
    float out[kTile];
    for (; t + kTile <= n; t += kTile) {
      RowTile<kTile>(x + t * in, in, row, out);
      for (int k = 0; k < kTile; ++k) y[(t + k) * ldy + o] = out[k];
    }
    for (; t < n; ++t) {
      RowTile<1>(x + t * in, in, row, out);
      y[t * ldy + o] = out[0];
    }
  }
}

}  // namespace gemmad::kernels
