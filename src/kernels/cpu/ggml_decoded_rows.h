// The row loop of the portable ggml block-type Linear (linear_ggml_generic.cc): per output row the
// blocks are decoded once into int8 values, a float scale per 16 elements and, for Q4_K, a float
// minimum per 32; then each 32-element activation block (int8 q, f32 d) meets them with exact
// int32 partial sums per 16-element half:
//   y[t, o] = Σ_b d[t, b] · (s[o, 2b] · lo + s[o, 2b + 1] · hi − m[o, b] · Σ_j q[t, j]).
// Shared by the portable and the NEON kernels (baseline on AArch64, no ISA flags), which differ
// only in how they decode and sum, so their outputs are equal bit for bit. Not for ISA-flagged
// files (their copies of inline header code could leak into generic code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gemmad::kernels::internal {

// One decoded row: values, a scale per 16 elements, a minimum per 32 (0 except Q4_K).
struct GgmlDecodedRow {
  std::vector<int8_t> v;
  std::vector<float> scale, min;
  void Resize(int64_t in) {
    v.resize(static_cast<size_t>(in));
    scale.resize(static_cast<size_t>(in / 16));
    min.assign(static_cast<size_t>(in / 32), 0.0f);
  }
};

// decode(row bytes, in, GgmlDecodedRow*); dot16(a, b) = Σ of 16 int8 products; sum32(a) = Σ of 32 int8.
template <class Decode, class Dot16, class Sum32>
void LinearGgmlDecodedRows(Decode decode, Dot16 dot16, Sum32 sum32, size_t row_bytes, const int8_t* q, const float* d,
                           int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end, float* y,
                           int64_t ldy) {
  thread_local GgmlDecodedRow dec;
  dec.Resize(in);
  const int64_t nb = in / 32;
  for (int64_t o = o_begin; o < o_end; ++o) {
    decode(w + static_cast<size_t>(o) * row_bytes, in, &dec);
    for (int64_t t = 0; t < n; ++t) {
      const int8_t* qt = q + t * in;
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const int8_t* x = qt + b * 32;
        const int8_t* v = dec.v.data() + b * 32;
        const int32_t lo = dot16(x, v), hi = dot16(x + 16, v + 16);
        const float m = dec.min[static_cast<size_t>(b)];
        const int32_t sum = m != 0.0f ? sum32(x) : 0;
        const float block = dec.scale[static_cast<size_t>(2 * b)] * static_cast<float>(lo) +
                            dec.scale[static_cast<size_t>(2 * b + 1)] * static_cast<float>(hi) -
                            m * static_cast<float>(sum);
        acc += d[t * nb + b] * block;
      }
      y[t * ldy + o] = acc;
    }
  }
}

}  // namespace gemmad::kernels::internal
