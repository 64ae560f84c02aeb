// Embedding gather: touches only the rows named (the PLE table is memory-mapped and huge).
// A quantized table (the tied embedding under --quantization) is dequantized row by row.
#include "kernels/view_checks.h"
#include "kernels/cpu/cpu_ops.h"

namespace gemmad::kernels::cpu {

void EmbeddingGather(const ExecContext& ctx, const TensorView& table, const TensorView& ids, float scale,
                     const TensorView& out) {
  internal::CheckMatrixDType(table, "EmbeddingGather table");
  internal::CheckDType(ids, tensor::DType::kI32, "EmbeddingGather ids");
  internal::CheckDType(out, tensor::DType::kF32, "EmbeddingGather out");
  internal::CheckRank(table, 2, "EmbeddingGather table");
  const int64_t rows = table.shape[0], m = table.shape[1], n = ids.NumElements();
  GEMMAD_CHECK(out.NumElements() == n * m, "EmbeddingGather: out {} for {} ids of width {}",
               out.shape.ToString(), n, m);
  const int32_t* id = ids.As<const int32_t>();
  float* o = out.As<float>();
  for (int64_t t = 0; t < n; ++t) {
    GEMMAD_CHECK(id[t] >= 0 && id[t] < rows, "EmbeddingGather: id {} outside [0, {})", id[t], rows);
  }
  ParallelFor(ctx, n, 1, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t base = static_cast<int64_t>(id[t]) * m;
      float* orow = o + t * m;
      if (tensor::IsBlockQuantized(table.dtype)) {
        DequantizeRow(table, id[t], orow);
        for (int64_t j = 0; j < m; ++j) orow[j] *= scale;
      } else if (table.dtype == tensor::DType::kBF16) {
        const uint16_t* row = table.As<const uint16_t>() + base;
        for (int64_t j = 0; j < m; ++j) orow[j] = tensor::Bf16ToFloat(row[j]) * scale;
      } else {
        const float* row = table.As<const float>() + base;
        for (int64_t j = 0; j < m; ++j) orow[j] = row[j] * scale;
      }
    }
  });
}

}  // namespace gemmad::kernels::cpu
