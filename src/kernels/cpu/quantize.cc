// Load-time weight quantization to kQ8R / kQ4_0 (tensor/quant_blocks.h) and row dequantization.
// Rows are independent, so the pool splits them; each row's bytes depend only on that row.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "kernels/cpu/q4_layout.h"
#include "kernels/op_contracts.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"
#include "tensor/ggml_quants.h"
#include "tensor/half.h"
#include "tensor/fp8.h"
#include "tensor/i8b_rows.h"
#include "tensor/lut_rows.h"
#include "tensor/q4_groups.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels::cpu {
namespace {

using tensor::kQuantBlock;

// One row of src as floats.
void LoadRow(const TensorView& src, int64_t r, int64_t in, float* out) {
  if (src.dtype == tensor::DType::kBF16) {
    const uint16_t* p = src.As<const uint16_t>() + r * in;
    for (int64_t i = 0; i < in; ++i) out[i] = tensor::Bf16ToFloat(p[i]);
  } else {
    std::copy_n(src.As<const float>() + r * in, in, out);
  }
}

}  // namespace

void QuantizeWeights(const ExecContext& ctx, const TensorView& src, const TensorView& dst) {
  const internal::QuantizeShape shape = internal::CheckQuantizeWeights(src, dst);
  const int64_t rows = shape.rows, in = shape.in;
  if (dst.dtype == tensor::DType::kQ4_0x16) {
    // Each group of 16 rows quantized as a kQ4_0 matrix of its own, then regrouped.
    const size_t group_bytes = 16 * tensor::RowBytes(tensor::DType::kQ4_0, in);
    const int64_t row_bytes = in * static_cast<int64_t>(tensor::DTypeSize(src.dtype));
    ParallelFor(ctx, rows / 16, std::max<int64_t>(1, 16384 / in), [&](int64_t b, int64_t e) {
      std::vector<uint8_t> pairs(group_bytes);
      for (int64_t g = b; g < e; ++g) {
        TensorView s = src, p = dst;
        s.data = src.As<uint8_t>() + g * 16 * row_bytes;
        s.shape = tensor::Shape{16, in};
        p.dtype = tensor::DType::kQ4_0;
        p.data = pairs.data();
        p.shape = s.shape;
        cpu::QuantizeWeights(ExecContext{}, s, p);
        tensor::GroupQ4_0Rows(pairs.data(), 16, in, dst.As<uint8_t>() + static_cast<size_t>(g) * group_bytes);
      }
    });
    return;
  }
  const size_t stride = tensor::RowBytes(dst.dtype, in);
  auto* out = dst.As<uint8_t>();
  const bool q8 = dst.dtype == tensor::DType::kQ8R;
  const CpuKernelTable& k = CpuKernels();
  ParallelFor(ctx, rows, std::max<int64_t>(1, 262144 / in), [&](int64_t b, int64_t e) {
    std::vector<float> row(static_cast<size_t>(in));
    for (int64_t r = b; r < e; ++r) {
      LoadRow(src, r, in, row.data());
      if (q8) {
        k.quantize_row_q8r(row.data(), in, out + static_cast<size_t>(r) * stride);
        continue;
      }
      const internal::Q4Location at0 = internal::LocateQ4(rows, in, r, 0);
      const size_t block_stride = (rows % 2 == 1 && r == rows - 1) ? sizeof(tensor::BlockQ4_0) : sizeof(tensor::BlockQ4_0x2);
      k.quantize_row_q4_0(row.data(), in, out + at0.scale, out + at0.qs, block_stride);
    }
  });
}

tensor::DType Int4WeightDType(const ExecContext&, const tensor::Shape& shape) {
  const bool grouped = CpuKernels().linear_q4_0x16 != nullptr && shape.rank == 2 && shape[0] % 16 == 0;
  return grouped ? tensor::DType::kQ4_0x16 : tensor::DType::kQ4_0;
}

void DequantizeRow(const TensorView& matrix, int64_t r, float* out) {
  internal::CheckMatrixDType(matrix, "DequantizeRow matrix");
  GEMMAD_CHECK(tensor::IsBlockQuantized(matrix.dtype) && matrix.shape.rank >= 2, "DequantizeRow: {} {}",
               tensor::DTypeName(matrix.dtype), matrix.shape.ToString());
  const int64_t m = matrix.shape[matrix.shape.rank - 1], rows = matrix.NumElements() / m;
  GEMMAD_CHECK(r >= 0 && r < rows, "DequantizeRow: row {} of {}", r, rows);
  const auto* p = matrix.As<const uint8_t>();
  if (auto id = tensor::GgmlTypeId(matrix.dtype)) {
    const Status s = tensor::DequantizeGgmlRow(*id, p + static_cast<size_t>(r) * tensor::RowBytes(matrix.dtype, m), m, out);
    GEMMAD_CHECK(s.ok(), "DequantizeRow: {}", s.message());
    return;
  }
  if (matrix.dtype == tensor::DType::kLut4R || matrix.dtype == tensor::DType::kLut2R) {
    const uint8_t* row = p + static_cast<size_t>(r) * tensor::RowBytes(matrix.dtype, m);
    for (int64_t i = 0; i < m; ++i) out[i] = tensor::LutRowElement(row, tensor::LutBits(matrix.dtype), i);
    return;
  }
  if (matrix.dtype == tensor::DType::kI8BR) {
    const uint8_t* row = p + static_cast<size_t>(r) * tensor::RowBytes(matrix.dtype, m);
    for (int64_t i = 0; i < m; ++i) out[i] = tensor::I8BRowElement(row, i);
    return;
  }
  if (matrix.dtype == tensor::DType::kF8R) {
    const uint8_t* row = p + static_cast<size_t>(r) * tensor::RowBytes(tensor::DType::kF8R, m);
    float d;
    std::memcpy(&d, row, sizeof(float));
    for (int64_t i = 0; i < m; ++i) out[i] = d * tensor::E4M3ToFloat(row[sizeof(float) + static_cast<size_t>(i)]);
    return;
  }
  if (matrix.dtype == tensor::DType::kQ8R) {
    const uint8_t* row = p + static_cast<size_t>(r) * tensor::RowBytes(tensor::DType::kQ8R, m);
    float d;
    std::memcpy(&d, row, sizeof(float));
    const auto* q = reinterpret_cast<const int8_t*>(row + sizeof(float));
    for (int64_t i = 0; i < m; ++i) out[i] = d * static_cast<float>(q[i]);
    return;
  }
  if (matrix.dtype == tensor::DType::kQ4_0x16) {  // rows in groups of 16: the group's row r % 16
    const int64_t nb = m / kQuantBlock, l = r % 16;
    for (int64_t b = 0; b < nb; ++b) {  // the row's 2 + 16 bytes of the block only (a gather reads one row)
      const uint8_t* blk = p + static_cast<size_t>((r / 16) * nb + b) * sizeof(tensor::BlockQ4_0x16);
      using G = tensor::BlockQ4_0x16;
      uint16_t h;
      std::memcpy(&h, blk + offsetof(G, d) + sizeof(uint16_t) * l, sizeof h);
      const float d = tensor::F16ToFloat(h);
      for (int64_t j = 0; j < kQuantBlock / 2; ++j) {  // qs[j / 4][l][j % 4]
        const uint8_t v = blk[offsetof(G, qs) + sizeof(G::qs[0]) * (j / 4) + sizeof(G::qs[0][0]) * l + j % 4];
        out[b * kQuantBlock + j] = d * static_cast<float>((v & 15) - 8);
        out[b * kQuantBlock + j + kQuantBlock / 2] = d * static_cast<float>((v >> 4) - 8);
      }
    }
    return;
  }
  for (int64_t b = 0; b < m / kQuantBlock; ++b) {
    const internal::Q4Location at = internal::LocateQ4(rows, m, r, b);
    uint16_t h;
    std::memcpy(&h, p + at.scale, 2);
    const float d = tensor::F16ToFloat(h);
    const uint8_t* qs = p + at.qs;
    for (int64_t j = 0; j < kQuantBlock / 2; ++j) {
      out[b * kQuantBlock + j] = d * static_cast<float>((qs[j] & 15) - 8);
      out[b * kQuantBlock + j + kQuantBlock / 2] = d * static_cast<float>((qs[j] >> 4) - 8);
    }
  }
}

}  // namespace gemmad::kernels::cpu
