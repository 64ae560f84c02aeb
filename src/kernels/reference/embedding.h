// Scalar reference embedding gather: out[t, :] = table[ids[t], :] · scale.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// table: [num_rows, row_len] fp32; out: [n, row_len].
void EmbeddingGatherF32(const float* table, int64_t row_len, const int32_t* ids, int64_t n,
                        float scale, float* out);
// table holds bf16 bit patterns.
void EmbeddingGatherBf16(const uint16_t* table, int64_t row_len, const int32_t* ids, int64_t n,
                         float scale, float* out);

}  // namespace gemmad::kernels::reference
