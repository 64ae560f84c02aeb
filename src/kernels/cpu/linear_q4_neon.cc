// ARM NEON Linear for kQ4_0 weights (rows in pairs, tensor/quant_blocks.h; GGUF Q4_0 files and
// --quantization int4). The portable kernel's contract and arithmetic (linear_quant_generic.cc):
// per (token, row, block) the exact int32 Σ x·(q4 − 8), from two widening 16-lane products
// (VMULL.S8, pairwise-added into int32 lanes) against the low and the high nibbles, in the portable
// kernel's row loop (q4_layout.h's LinearQ4_0Rows: the same float products in the same order), so
// the outputs equal the portable kernel's bit for bit. NEON is baseline on AArch64: this file takes
// no ISA flags, which is why it may use q4_layout.h's inline code. Built only for aarch64;
// parity-tested under qemu-aarch64.
#include <arm_neon.h>

#include <cstdint>

#include "kernels/cpu/q4_layout.h"
#include "kernels/registry.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels {
namespace {

// Σ x[j]·(w[j] − 8) over one block: x[0..15] against the low nibbles, x[16..31] the high ones.
inline int32_t BlockDot(const int8_t* x, const uint8_t* qs) {
  const uint8x16_t packed = vld1q_u8(qs);
  const int8x16_t eight = vdupq_n_s8(8);
  const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(packed, vdupq_n_u8(15))), eight);
  const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(packed, 4)), eight);
  const int8x16_t x0 = vld1q_s8(x), x1 = vld1q_s8(x + 16);
  int32x4_t acc = vpaddlq_s16(vmull_s8(vget_low_s8(x0), vget_low_s8(lo)));
  acc = vpadalq_s16(acc, vmull_high_s8(x0, lo));
  acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(x1), vget_low_s8(hi)));
  acc = vpadalq_s16(acc, vmull_high_s8(x1, hi));
  return vaddvq_s32(acc);
}

}  // namespace

void LinearQ4_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                    int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  internal::LinearQ4_0Rows([](const int8_t* x, const uint8_t* qs) { return BlockDot(x, qs); }, q, d, n, in, w, out,
                           o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
