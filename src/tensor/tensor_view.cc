// Shape formatting and row slicing.
#include "tensor/tensor_view.h"

namespace gemmad::tensor {

std::string Shape::ToString() const {
  std::string out = "[";
  for (int i = 0; i < rank; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims[i]);
  }
  out += "]";
  return out;
}

TensorView TensorView::Row(int64_t r) const {
  GEMMAD_CHECK(shape.rank == 2 && r >= 0 && r < shape[0], "Row({}) of {}", r, shape.ToString());
  // ggml types: plain rows
  GEMMAD_CHECK(dtype != DType::kQ4_0 && dtype != DType::kQ4_0x16, "Row({}) of a {} matrix (rows in pairs or groups)", r,
               DTypeName(dtype));
  TensorView v;
  v.dtype = dtype;
  v.device = device;
  v.shape = Shape{shape[1]};
  v.data = static_cast<char*>(data) + static_cast<size_t>(r) * RowBytes(dtype, shape[1]);
  return v;
}

size_t TensorView::SizeBytes() const {
  if (shape.rank == 0) return DTypeSize(dtype);
  const int64_t cols = shape[shape.rank - 1];
  return static_cast<size_t>(cols == 0 ? 0 : NumElements() / cols) * RowBytes(dtype, cols);
}

}  // namespace gemmad::tensor
