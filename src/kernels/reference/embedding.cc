// Scalar embedding gather.
#include "kernels/reference/embedding.h"

#include "tensor/half.h"

namespace gemmad::kernels::reference {

void EmbeddingGatherF32(const float* table, int64_t row_len, const int32_t* ids, int64_t n,
                        float scale, float* out) {
  for (int64_t t = 0; t < n; ++t) {
    const float* row = table + static_cast<int64_t>(ids[t]) * row_len;
    for (int64_t j = 0; j < row_len; ++j) out[t * row_len + j] = row[j] * scale;
  }
}

void EmbeddingGatherBf16(const uint16_t* table, int64_t row_len, const int32_t* ids, int64_t n,
                         float scale, float* out) {
  for (int64_t t = 0; t < n; ++t) {
    const uint16_t* row = table + static_cast<int64_t>(ids[t]) * row_len;
    for (int64_t j = 0; j < row_len; ++j) out[t * row_len + j] = tensor::Bf16ToFloat(row[j]) * scale;
  }
}

}  // namespace gemmad::kernels::reference
