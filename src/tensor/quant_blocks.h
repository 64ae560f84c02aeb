// Block layouts of gemmad's load-time weight quantization (`--quantization int8|int4`).
//
//   kQ8R  (int8, per output channel): a row of `in` weights is {float d; int8 q[in]},
//         w[i] ≈ d · q[i], q ∈ [-127, 127], d = max|w| / 127 (symmetric; -128 is never used, so
//         |q| fits the unsigned operand of an 8-bit multiply-add).
//   kQ4_0 (int4, groups of 32 along `in`): the values and scales of GGML's Q4_0, bit for bit
//         (18 bytes per 32 weights, 4.5 bits): per block an f16 scale d and 16 bytes qs;
//         element j is (qs[j] & 15) - 8 for j < 16 and (qs[j-16] >> 4) - 8 otherwise, w ≈ d ·
//         that; d = m / -8 where m is the element of largest magnitude, q = min(15, trunc(w/d
//         + 8.5)). Rows are stored in pairs so that one 32-byte load carries a block of two
//         rows: block b of rows (2p, 2p+1) is {f16 d[2]; uint8 qs[2][16]} (36 bytes) at byte
//         36·(p·nb + b), nb = in / 32. When the row count is odd the last row follows as
//         GGML's plain blocks {f16 d; uint8 qs[16]}. Any even-row-aligned slice (a MoE expert of
//         an [E, rows, in] stack) is itself such a matrix.
//   kQ4_0x16 (the same blocks, values and scales as kQ4_0, rows in groups of 16; the row count is a
//         multiple of 16): block b of group g (rows 16g..16g+15) is BlockQ4_0x16 (288 bytes) at
//         byte 288·(g·nb + b): the 16 rows' f16 scales, then four 64-byte registers j whose 4-byte
//         lane l holds qs[4j..4j+3] of row 16g + l (qs as in kQ4_0: low nibbles elements 4j..4j+3,
//         high nibbles 16+4j..16+4j+3). A kernel with one row per 32-bit lane reads them as they are
//         (kernels/cpu/linear_q4x16_avx512vnni.cc); made at load time where the active kernel
//         table has such a kernel (model/gemma4/weight_quantization.cc).
//   kF8R  (FP8 E4M3 per output channel, from compressed-tensors FP8 checkpoints): a row of `in`
//         weights is {float d; uint8 e4m3[in]}, w[i] = d · e4m3[i] (tensor/fp8.h). Its activations
//         are not int8: they are quantized per token to E4M3 with s = max(max|x| / 448, 1 / (448 ·
//         512)), vLLM's dynamic per-token FP8 recipe, and y = s · d · Σ e4m3(x/s) · e4m3(w).
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

// Block b of two rows of a kQ4_0 matrix (the lone last row of an odd count uses BlockQ4_0).
struct BlockQ4_0x2 {
  uint16_t d[2];
  uint8_t qs[2][16];
};
static_assert(sizeof(BlockQ4_0x2) == 36, "BlockQ4_0x2 must hold two Q4_0 blocks exactly");

// Block b of a group of 16 rows of a kQ4_0x16 matrix: qs[j][l] = qs[4j..4j+3] of row l.
struct BlockQ4_0x16 {
  uint16_t d[16];
  uint8_t qs[4][16][4];
};
static_assert(sizeof(BlockQ4_0x16) == 288, "BlockQ4_0x16 must hold sixteen Q4_0 blocks exactly");

}  // namespace gemmad::tensor
