// Block layouts of gemmad's load-time weight quantization (`--quantization int8|int4`).
//
//   kQ8R  (int8, per output channel): a row of `in` weights is {float d; int8 q[in]},
//         w[i] ≈ d · q[i], q ∈ [-127, 127], d = max|w| / 127 (symmetric; -128 is never used, so
//         |q| fits the unsigned operand of an 8-bit multiply-add).
//   kQ4_0 (int4, groups of 32 along `in`): a row is in/32 blocks of {f16 d; uint8 qs[16]},
//         element j of a block is (qs[j] & 15) - 8 for j < 16 and (qs[j-16] >> 4) - 8 otherwise,
//         w ≈ d · that. Bit for bit GGML's Q4_0 (18 bytes per 32 weights, 4.5 bits), including its
//         rounding: d = m / -8 where m is the element of largest magnitude, q = min(15, trunc(w/d
//         + 8.5)).
//
// Activations meet these weights quantized per token in blocks of kQuantBlock: {int8 q[32]} with
// one fp32 scale per block (d = max|x| / 127, q = round(x / d)), the GGML Q8_0 recipe with an
// fp32 scale. A dot product is then Σ_blocks d_x · d_w · Σ_j q_x[j] · q_w[j] with exact integer
// inner sums (kQ8R multiplies its row scale once at the end).
#pragma once

#include <cstdint>

namespace gemmad::tensor {

constexpr int64_t kQuantBlock = 32;

struct BlockQ4_0 {
  uint16_t d;       // f16 bit pattern
  uint8_t qs[16];   // low nibbles: elements 0..15; high nibbles: 16..31
};
static_assert(sizeof(BlockQ4_0) == 18, "BlockQ4_0 must be packed like GGML's block_q4_0");

}  // namespace gemmad::tensor
