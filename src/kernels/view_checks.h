// Internal helpers shared by the backends' ops: view validation (the ops.h contracts) and element
// loads of either weight dtype. Not part of the public kernels API.
#pragma once

#include <cstdint>

#include "base/check.h"
#include "tensor/half.h"
#include "tensor/tensor_view.h"

namespace gemmad::kernels::internal {

inline void CheckDType(const tensor::TensorView& v, tensor::DType want, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == want, "{}: dtype {} (want {})", what, tensor::DTypeName(v.dtype),
               tensor::DTypeName(want));
}

inline void CheckWeightDType(const tensor::TensorView& v, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == tensor::DType::kF32 || v.dtype == tensor::DType::kBF16,
               "{}: dtype {} (want F32 or BF16)", what, tensor::DTypeName(v.dtype));
}

// A weight the quantized kernels can also read (Linear, EmbeddingGather, MoE experts).
inline void CheckMatrixDType(const tensor::TensorView& v, const char* what) {
  GEMMAD_CHECK(v.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(v.dtype == tensor::DType::kF32 || v.dtype == tensor::DType::kBF16 || tensor::IsBlockQuantized(v.dtype),
               "{}: dtype {} (want F32, BF16, Q8_R or Q4_0)", what, tensor::DTypeName(v.dtype));
  GEMMAD_CHECK(!tensor::IsBlockQuantized(v.dtype) || (v.shape.rank > 0 && v.shape[v.shape.rank - 1] % 32 == 0),
               "{}: {} rows of {} elements (want a multiple of 32)", what, tensor::DTypeName(v.dtype),
               v.shape.rank > 0 ? v.shape[v.shape.rank - 1] : 0);
}

inline void CheckRank(const tensor::TensorView& v, int rank, const char* what) {
  GEMMAD_CHECK(v.shape.rank == rank, "{}: shape {} (want rank {})", what, v.shape.ToString(), rank);
}

// Copy's contract: equal dtypes, not block-quantized, both with data.
inline void CheckCopyable(const tensor::TensorView& src, const tensor::TensorView& dst, const char* what) {
  GEMMAD_CHECK(src.data != nullptr && dst.data != nullptr, "{}: null data", what);
  GEMMAD_CHECK(src.dtype == dst.dtype && !tensor::IsBlockQuantized(src.dtype), "{}: dtype {} -> {}", what,
               tensor::DTypeName(src.dtype), tensor::DTypeName(dst.dtype));
}

// GatherRows' contract, checked; what an implementation needs.
struct RowGather {
  const int64_t* rows;
  int64_t num_rows;
  int64_t row_bytes;
};
inline RowGather CheckGatherRows(const tensor::TensorView& x, const tensor::TensorView& rows,
                                 const tensor::TensorView& out) {
  CheckCopyable(x, out, "GatherRows");
  GEMMAD_CHECK(rows.dtype == tensor::DType::kI64 && (rows.data != nullptr || rows.NumElements() == 0),
               "GatherRows rows: dtype {} (want I64)", tensor::DTypeName(rows.dtype));
  CheckRank(x, 2, "GatherRows x");
  CheckRank(out, 2, "GatherRows out");
  const int64_t n = x.shape[0], r = rows.NumElements();
  GEMMAD_CHECK(out.shape[0] == r && out.shape[1] == x.shape[1], "GatherRows: x {} rows {} out {}", x.shape.ToString(),
               rows.shape.ToString(), out.shape.ToString());
  const int64_t* p = rows.As<const int64_t>();
  for (int64_t i = 0; i < r; ++i) {
    GEMMAD_CHECK(p[i] >= 0 && p[i] < n, "GatherRows: row {} of {}", p[i], n);
    GEMMAD_CHECK(x.data != out.data || (p[i] >= i && (i == 0 || p[i] > p[i - 1])),
                 "GatherRows: in place, row {} moves to {} (want ascending rows, none moved up)", p[i], i);
  }
  return {p, r, static_cast<int64_t>(tensor::DTypeSize(x.dtype)) * x.shape[1]};
}

// SliceColumns' contract, checked; what an implementation needs.
struct ColumnSlice {
  int64_t num_rows;
  int64_t elem_bytes;
  int64_t in_row_bytes;
  int64_t out_row_bytes;
};
inline ColumnSlice CheckSliceColumns(const tensor::TensorView& x, int64_t begin, const tensor::TensorView& out) {
  CheckCopyable(x, out, "SliceColumns");
  CheckRank(x, 2, "SliceColumns x");
  CheckRank(out, 2, "SliceColumns out");
  GEMMAD_CHECK(out.shape[0] == x.shape[0] && begin >= 0 && begin + out.shape[1] <= x.shape[1] && x.data != out.data,
               "SliceColumns: x {} columns [{}, {}) out {}", x.shape.ToString(), begin, begin + out.shape[1],
               out.shape.ToString());
  const auto elem = static_cast<int64_t>(tensor::DTypeSize(x.dtype));
  return {x.shape[0], elem, elem * x.shape[1], elem * out.shape[1]};
}

// Element i of an f32 or bf16 buffer as float.
inline float LoadAsFloat(const void* data, tensor::DType dtype, int64_t i) {
  if (dtype == tensor::DType::kBF16) return tensor::Bf16ToFloat(static_cast<const uint16_t*>(data)[i]);
  return static_cast<const float*>(data)[i];
}

}  // namespace gemmad::kernels::internal
