// kQ4_0 (rows in pairs) to kQ4_0x16 (rows in groups of 16): the same blocks, rearranged
// (tensor/quant_blocks.h).
#pragma once

#include <cstdint>

namespace gemmad::tensor {

// dst (rows · in / 32 · 18 bytes) <- the kQ4_0x16 form of the kQ4_0 matrix src of `rows` rows (a
// multiple of 16) and `in` columns (a multiple of 32). The buffers must not overlap.
void GroupQ4_0Rows(const uint8_t* src, int64_t rows, int64_t in, uint8_t* dst);

}  // namespace gemmad::tensor
