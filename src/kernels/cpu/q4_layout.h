// Addressing of kQ4_0 matrices (rows in pairs, tensor/quant_blocks.h) for the portable code.
// Not for ISA-flagged files (their copies of inline header code could leak into generic code).
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace gemmad::kernels::internal
