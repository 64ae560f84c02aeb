// kI8BR (tensor/dtype.h): int8 weights per output row with an fp32 row scale, each weight the bf16
// rounding of q · s: compressed-tensors' int8 `int-quantized` Linears with bf16 scales (the mobile
// QAT files' PLE gates), whose reference weight is bf16(q · s) (the library multiplies in the
// scale's dtype; model/ct_source.h). The kernels read one byte a weight and round in registers, so
// they multiply by exactly the weights the reference forward uses.
//
// A row of `cols` elements is {float s; int8 q[cols]} (4 + cols bytes, any cols); element i is
// RoundToBf16(float(q[i]) · s), the product in fp32 and the rounding to nearest, ties to even.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensor/half.h"

namespace gemmad::tensor {

inline constexpr size_t kI8BHeadBytes = sizeof(float);

inline float I8BRowScale(const uint8_t* row) {
  float s;
  std::memcpy(&s, row, sizeof(s));
  return s;
}

// Element i of a row (row points at its scale).
inline float I8BRowElement(const uint8_t* row, int64_t i) {
  const auto q = static_cast<int8_t>(row[kI8BHeadBytes + static_cast<size_t>(i)]);
  return RoundToBf16(static_cast<float>(q) * I8BRowScale(row));
}

// Writes one row: the scale, then q[0..cols).
inline void WriteI8BRow(float s, const int8_t* q, int64_t cols, uint8_t* row) {
  std::memcpy(row, &s, sizeof(s));
  std::memcpy(row + kI8BHeadBytes, q, static_cast<size_t>(cols));
}

}  // namespace gemmad::tensor
