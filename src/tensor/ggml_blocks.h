// Block layouts of the ggml quantized types gemmad dequantizes (ggml-common.h; spec gguf.md §4.1),
// byte for byte as they lie in a GGUF file. Every multi-byte field is little-endian; "f16" fields
// hold IEEE binary16 bit patterns. Blocks in a file are packed back to back with no alignment, so
// read them with memcpy. Q4_0 is tensor/quant_blocks.h's BlockQ4_0 (the same layout).
#pragma once

#include <cstdint>

#include "tensor/ggml_types.h"
#include "tensor/quant_blocks.h"

namespace gemmad::tensor {

inline constexpr int64_t kGgmlQK = 32;    // elements per block of the legacy and IQ4_NL types
inline constexpr int64_t kGgmlQK_K = 256;  // elements per block of the k-quants and IQ4_XS

struct BlockQ4_1 {
  uint16_t d, m;   // f16 scale and minimum
  uint8_t qs[16];  // low nibbles: elements 0..15; high nibbles: 16..31
};

struct BlockQ5_0 {
  uint16_t d;      // f16
  uint8_t qh[4];   // bit j of the little-endian uint32: 5th bit of element j
  uint8_t qs[16];  // low 4 bits, as Q4_0
};

struct BlockQ5_1 {
  uint16_t d, m;
  uint8_t qh[4];
  uint8_t qs[16];
};

struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[32];
};

struct BlockQ2_K {
  uint8_t scales[16];  // per 16 elements: low nibble scale, high nibble min
  uint8_t qs[64];      // 2-bit values
  uint16_t d, dmin;    // f16 super-block scales of the scales and of the mins
};

struct BlockQ3_K {
  uint8_t hmask[32];   // 3rd (high) bit, set = no -4 offset
  uint8_t qs[64];      // low 2 bits
  uint8_t scales[12];  // sixteen 6-bit scales (spec §4.2)
  uint16_t d;
};

struct BlockQ4_K {
  uint16_t d, dmin;
  uint8_t scales[12];  // eight 6-bit (scale, min) pairs (spec §4.2)
  uint8_t qs[128];
};

struct BlockQ5_K {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[32];
  uint8_t qs[128];
};

struct BlockQ6_K {
  uint8_t ql[128];    // low 4 bits
  uint8_t qh[64];     // high 2 bits
  int8_t scales[16];  // per 16 elements
  uint16_t d;
};

struct BlockQ8_K {
  float d;             // f32, unlike every other type
  int8_t qs[256];
  int16_t bsums[16];   // sums of 16-element groups (dot products only)
};

struct BlockIQ4_NL {
  uint16_t d;
  uint8_t qs[16];  // indices into the non-linear table, nibbles as Q4_0
};

struct BlockIQ4_XS {
  uint16_t d;
  uint16_t scales_h;   // high 2 bits of the eight 6-bit sub-block scales
  uint8_t scales_l[4];  // low 4 bits, two per byte
  uint8_t qs[128];
};

struct BlockMXFP4 {
  uint8_t e;       // E8M0 shared exponent
  uint8_t qs[16];  // E2M1 indices, nibbles as Q4_0
};

// Each layout has the size of the type table (and therefore of ggml) and that type's block size.
template <typename Block>
constexpr bool MatchesGgmlType(uint32_t id, int64_t block_size) {
  const GgmlTypeInfo* t = FindGgmlType(id);
  return t != nullptr && t->type_size == sizeof(Block) && t->block_size == block_size;
}
static_assert(MatchesGgmlType<BlockQ4_0>(kGgmlQ4_0, kGgmlQK));
static_assert(MatchesGgmlType<BlockQ4_1>(kGgmlQ4_1, kGgmlQK));
static_assert(MatchesGgmlType<BlockQ5_0>(kGgmlQ5_0, kGgmlQK));
static_assert(MatchesGgmlType<BlockQ5_1>(kGgmlQ5_1, kGgmlQK));
static_assert(MatchesGgmlType<BlockQ8_0>(kGgmlQ8_0, kGgmlQK));
static_assert(MatchesGgmlType<BlockQ2_K>(kGgmlQ2_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockQ3_K>(kGgmlQ3_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockQ4_K>(kGgmlQ4_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockQ5_K>(kGgmlQ5_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockQ6_K>(kGgmlQ6_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockQ8_K>(kGgmlQ8_K, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockIQ4_NL>(kGgmlIQ4_NL, kGgmlQK));
static_assert(MatchesGgmlType<BlockIQ4_XS>(kGgmlIQ4_XS, kGgmlQK_K));
static_assert(MatchesGgmlType<BlockMXFP4>(kGgmlMXFP4, kGgmlQK));

}  // namespace gemmad::tensor
