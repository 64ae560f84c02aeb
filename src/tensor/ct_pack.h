// compressed-tensors' pack-quantized layout (spec quantized-checkpoints.md §1.7): a row of K
// b-bit integers q ∈ [-2^(b-1), 2^(b-1)-1] is stored as u = q + 2^(b-1) in a little-endian bit
// stream of int32 words, element k at bits [k·b, k·b+b) (element 0 in the low bits of word 0;
// elements may straddle two words for b ∈ {3,5,6,7}); a row takes ceil(K·b/32) words, the bits
// past the last element are zero. Zero points of asymmetric schemes are packed the same way
// along the output rows. Dequantization (§1.8) is w = (q - zp) · s, rounded once to the scale's
// dtype, which is what the library (and so transformers' reference) computes.
#pragma once

#include <cstdint>

namespace gemmad::tensor {

// Words of one packed row of `k` elements of `bits` bits.
constexpr int64_t CtPackedWords(int64_t k, int bits) { return (k * bits + 31) / 32; }

// The unsigned value u (= q + 2^(bits-1)) of element `k` of a packed row.
inline uint32_t CtUnpackU(const int32_t* row, int64_t k, int bits) {
  const int64_t bit = k * bits;
  const int64_t w = bit / 32, off = bit % 32;
  uint64_t v = static_cast<uint32_t>(row[w]);
  if (off + bits > 32) v |= static_cast<uint64_t>(static_cast<uint32_t>(row[w + 1])) << 32;
  return static_cast<uint32_t>((v >> off) & ((1u << bits) - 1u));
}

// Element `k` as the signed value q.
inline int32_t CtUnpack(const int32_t* row, int64_t k, int bits) {
  return static_cast<int32_t>(CtUnpackU(row, k, bits)) - (1 << (bits - 1));
}

// Packs `k` signed values (each within the b-bit range) into CtPackedWords(k, bits) words.
void CtPackRow(const int8_t* q, int64_t k, int bits, int32_t* words);

}  // namespace gemmad::tensor
