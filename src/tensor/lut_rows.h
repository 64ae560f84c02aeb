// kLut4R / kLut2R (tensor/dtype.h): rows of 4- or 2-bit codes, each indexing a 16-entry fp32 table
// stored at the head of its row. A loader puts into the table whatever value each code stands for
// (compressed-tensors' mobile QAT weights: bf16((u - 2^(b-1)) · s), the library's own rounding,
// model/ct_source.h), so the kernels read 4 (2) bits a weight and multiply by exactly the weights
// the reference forward uses.
//
// A row of `cols` elements is {float lut[16]; uint8 codes[cols · bits / 8]} (64 + cols / 2 or
// cols / 4 bytes), in groups of G = 16 · 8 / bits elements (32 or 64) per 16 code bytes: element
// G·g + 16·h + j (j < 16, h < 8 / bits) is lut[(codes[16·g + j] >> (bits · h)) & 15]. The index
// keeps the codes above the wanted one (one shift a vector in the kernels, no mask), so a 2-bit
// row's table repeats its four values: lut[i] == lut[i & 3] (WriteLutRow does that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensor/dtype.h"

namespace gemmad::tensor {

inline constexpr int kLutEntries = 16;
inline constexpr size_t kLutHeadBytes = kLutEntries * sizeof(float);

constexpr int LutBits(DType t) { return t == DType::kLut2R ? 2 : 4; }
constexpr DType LutDType(int bits) { return bits == 2 ? DType::kLut2R : DType::kLut4R; }
constexpr int64_t LutGroupElements(int bits) { return 16 * 8 / bits; }
constexpr size_t LutRowBytes(int bits, int64_t cols) {
  return kLutHeadBytes + static_cast<size_t>(cols) * static_cast<size_t>(bits) / 8;
}

// Element i of a row (row points at its table).
inline float LutRowElement(const uint8_t* row, int bits, int64_t i) {
  const int64_t g = i / LutGroupElements(bits), h = (i % LutGroupElements(bits)) / 16, j = i % 16;
  const uint8_t c = row[kLutHeadBytes + static_cast<size_t>(16 * g + j)];
  float v;
  std::memcpy(&v, row + static_cast<size_t>((c >> (bits * h)) & 15) * sizeof(float), sizeof(float));
  return v;
}

// Writes one row: values[u] for each code u < 2^bits (the table; repeated for 2 bits, the unused
// entries of a 3-bit code set to 0), and the codes u[0..cols) (each < 2^bits; cols a multiple of
// LutGroupElements(bits)).
void WriteLutRow(const float* values, int value_bits, int bits, const uint8_t* u, int64_t cols, uint8_t* row);

}  // namespace gemmad::tensor
