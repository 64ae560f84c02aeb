// Addressing of kQ4_0 matrices (rows in pairs, tensor/quant_blocks.h), and the row loop of the
// portable kQ4_0 Linear, for the portable code and the NEON kernels (baseline on AArch64, no ISA
// flags). Not for ISA-flagged files (their copies of inline header code could leak into generic code).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensor/half.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels::internal {

// Byte offsets of the f16 scale and the 16 nibble bytes of block b of row r.
struct Q4Location {
  size_t scale, qs;
};
inline Q4Location LocateQ4(int64_t rows, int64_t in, int64_t r, int64_t b) {
  const auto nb = static_cast<size_t>(in / tensor::kQuantBlock);
  if (rows % 2 == 1 && r == rows - 1) {
    const size_t at = static_cast<size_t>(r) * nb * sizeof(tensor::BlockQ4_0) + static_cast<size_t>(b) * sizeof(tensor::BlockQ4_0);
    return {at, at + 2};
  }
  const size_t at = (static_cast<size_t>(r / 2) * nb + static_cast<size_t>(b)) * sizeof(tensor::BlockQ4_0x2);
  const size_t k = static_cast<size_t>(r % 2);
  return {at + 2 * k, at + 4 + 16 * k};
}

// The kQ4_0 Linear of rows [o_begin, o_end) (kernels/registry.h's LinearQuantFn contract) with
// `dot(x, qs)` = the exact Σ x[j]·(q4[j] − 8) of one block: every kernel built on it takes the
// same float products in the same order, whatever computes the integer sums.
template <class BlockDot>
void LinearQ4_0Rows(BlockDot dot, const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
                    int64_t out, int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / tensor::kQuantBlock;
  for (int64_t o = o_begin; o < o_end; ++o) {
    for (int64_t t = 0; t < n; ++t) {
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        const Q4Location at = LocateQ4(out, in, o, b);
        uint16_t h;
        std::memcpy(&h, w + at.scale, 2);
        const float scale = d[t * nb + b] * tensor::F16ToFloat(h);
        acc += scale * static_cast<float>(dot(q + t * in + b * tensor::kQuantBlock, w + at.qs));
      }
      y[t * ldy + o] = acc;
    }
  }
}

}  // namespace gemmad::kernels::internal
