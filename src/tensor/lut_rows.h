// kLut4R / kLut2R (tensor/dtype.h): rows of 4- or 2-bit codes, each indexing a 16-entry table held
// at the head of its row as integers times one unit: entry c = float(n[c]) · unit, every n a 16-bit
// integer. A loader puts into the table whatever value each code stands for (compressed-tensors'
// mobile QAT weights: bf16((u - 2^(b-1)) · s), the library's own rounding, model/ct_source.h), so
// the kernels read 4 (2) bits a weight and multiply by exactly the weights the reference forward
// uses. The integer form lets int8 activations meet the weights in exact 16-bit integer products
// (kernels::LinearStaticInt8); the fp32 kernels rebuild the table per row in one multiply.
//
// A row of `cols` elements is {int16 n[16]; float unit; LutByteForm form (below); uint8 codes[cols ·
// bits / 8]} (64 + cols / 2 or cols / 4 bytes), in groups of G = 16 · 8 / bits elements (32 or 64) per
// 16 code bytes: element G·g + 16·h + j (j < 16, h < 8 / bits) is entry (codes[16·g + j] >> (bits · h)) & 15.
// The index keeps the codes above the wanted one (one shift a vector in the kernels, no mask), so a
// 2-bit row's table repeats its four values: n[i] == n[i & 3] (WriteLutRow does that).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensor/dtype.h"

namespace gemmad::tensor {

inline constexpr int kLutEntries = 16;
inline constexpr size_t kLutUnitOffset = kLutEntries * sizeof(int16_t);  // the float unit's byte offset
inline constexpr size_t kLutHeadBytes = 64;
inline constexpr size_t kLutFormOffset = kLutUnitOffset + sizeof(float);  // the LutByteForm's byte offset
// |n| bound: with |k| <= 128 a 16-bit product pair fits 2^23, so 256 of them sum within int32.
inline constexpr int kLutMaxInt = 32767;

constexpr int LutBits(DType t) { return t == DType::kLut2R ? 2 : 4; }
constexpr DType LutDType(int bits) { return bits == 2 ? DType::kLut2R : DType::kLut4R; }
constexpr int64_t LutGroupElements(int bits) { return 16 * 8 / bits; }
constexpr size_t LutRowBytes(int bits, int64_t cols) {
  return kLutHeadBytes + static_cast<size_t>(cols) * static_cast<size_t>(bits) / 8;
}

// A row's table: value c = float(n[c]) · unit.
struct LutTable {
  int16_t n[kLutEntries] = {};
  float unit = 1.0f;
};

// values[0..count) as one table, exactly (float(n) · unit == value for each): first with a power-of-two
// unit (every bf16 or f16 rounding of (q - z) · s), else with `unit_hint` (an fp32 scale s whose values
// are fp32 (q - z) · s). False when neither represents every value within |n| <= kLutMaxInt, or a value
// is not finite.
bool LutTableOf(const float* values, int count, float unit_hint, LutTable* table);

// The table as a line plus a small remainder, for kernels that multiply the codes themselves (int8
// activations k, VPDPBUSD): n[c] = a + b·c + (u[c] - 128) for every code c of the row's values, u[c]
// a byte, so Σ k·n[c] = (a - 128)·Σk + b·Σ k·c + Σ k·u[c]. b is the line through the first and
// the last value, a the first value; `flags` says whether every remainder fits a byte (kResidual) and
// whether they are all zero (kLinear: every symmetric int2 table, whose values -2, -1, 0, 1 times
// bf16(s) round alike). Codes past the values (a 3-bit table in 4-bit codes) have u = 128. u_min is
// the least u[c]; kNarrow says every u[c] - u_min < 32 as well, so that a kernel whose product pairs
// must fit 16 bits (VPMADDUBSW: 2 · 31 · 128 < 2^15) can multiply u[c] - u_min and add u_min · Σk.
struct LutByteForm {
  static constexpr uint8_t kResidual = 1, kLinear = 2, kNarrow = 4;
  int32_t a = 0;
  int32_t b = 0;
  uint8_t u[kLutEntries] = {};
  uint8_t flags = 0;
  uint8_t u_min = 0;
  uint8_t pad[2] = {};
};
static_assert(sizeof(LutByteForm) == 28 && kLutFormOffset + sizeof(LutByteForm) == kLutHeadBytes);

// A row's byte form (row points at its head).
inline LutByteForm LutRowForm(const uint8_t* row) {
  LutByteForm f;
  std::memcpy(&f, row + kLutFormOffset, sizeof(f));
  return f;
}

// Entry c of a row's table (row points at its head).
inline float LutRowEntry(const uint8_t* row, int c) {
  int16_t n;
  float unit;
  std::memcpy(&n, row + static_cast<size_t>(c) * sizeof(int16_t), sizeof(n));
  std::memcpy(&unit, row + kLutUnitOffset, sizeof(unit));
  return static_cast<float>(n) * unit;
}

// Element i of a row.
inline float LutRowElement(const uint8_t* row, int bits, int64_t i) {
  const int64_t g = i / LutGroupElements(bits), h = (i % LutGroupElements(bits)) / 16, j = i % 16;
  const uint8_t c = row[kLutHeadBytes + static_cast<size_t>(16 * g + j)];
  return LutRowEntry(row, (c >> (bits * h)) & 15);
}

// Writes a row's 64-byte head: the table's entries for each code u < 2^value_bits (repeated for 2
// bits, the unused entries of a 3-bit code set to 0), its unit, its byte form, zeros.
void WriteLutHead(const LutTable& table, int value_bits, int bits, uint8_t* row);

// Writes one row: the table's entries for each code u < 2^value_bits (repeated for 2 bits, the unused
// entries of a 3-bit code set to 0), and the codes u[0..cols) (each < 2^value_bits; cols a multiple of
// LutGroupElements(bits)).
void WriteLutRow(const LutTable& table, int value_bits, int bits, const uint8_t* u, int64_t cols, uint8_t* row);

}  // namespace gemmad::tensor
