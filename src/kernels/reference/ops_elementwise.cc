// Reference backend: element-wise ops and data movement, one element at a time.
#include <cmath>
#include <cstring>

#include "kernels/reference/activation.h"
#include "kernels/reference/backend_ops.h"
#include "kernels/registry.h"
#include "kernels/op_contracts.h"
#include "tensor/int8_round.h"

namespace gemmad::kernels::reference::op {
namespace {

using tensor::DType;

void CheckF32Pair(const TensorView& a, const TensorView& b, const char* what) {
  internal::CheckDType(a, DType::kF32, what);
  internal::CheckDType(b, DType::kF32, what);
  GEMMAD_CHECK(a.NumElements() == b.NumElements(), "{}: {} vs {}", what, a.shape.ToString(), b.shape.ToString());
}

// Element `i` of `src` to element `j` of `dst`, `size` bytes each.
void CopyElement(const TensorView& src, int64_t i, const TensorView& dst, int64_t j, int64_t size) {
  std::memmove(static_cast<char*>(dst.data) + j * size, static_cast<const char*>(src.data) + i * size,
               static_cast<size_t>(size));
}

}  // namespace

void GeluTanhMul(const ExecContext&, const TensorView& gate, const TensorView& up, const TensorView& out) {
  CheckF32Pair(gate, up, "GeluTanhMul");
  CheckF32Pair(gate, out, "GeluTanhMul");
  reference::GeluTanhMul(gate.As<const float>(), up.As<const float>(), out.As<float>(), gate.NumElements());
}

void SoftCap(const ExecContext&, const TensorView& x, float cap) {
  internal::CheckDType(x, DType::kF32, "SoftCap x");
  GEMMAD_CHECK(cap > 0.0f, "SoftCap: cap {}", cap);
  reference::SoftCap(x.As<float>(), x.NumElements(), cap);
}

void Softmax(const ExecContext&, const TensorView& x) {
  internal::CheckDType(x, DType::kF32, "Softmax x");
  internal::CheckRank(x, 2, "Softmax x");
  reference::Softmax(x.As<float>(), x.shape[0], x.shape[1]);
}

void Add(const ExecContext&, const TensorView& a, const TensorView& b, const TensorView& out) {
  CheckF32Pair(a, b, "Add");
  CheckF32Pair(a, out, "Add");
  for (int64_t i = 0; i < a.NumElements(); ++i) out.As<float>()[i] = a.As<const float>()[i] + b.As<const float>()[i];
}

void Scale(const ExecContext&, const TensorView& x, float s) {
  internal::CheckDType(x, DType::kF32, "Scale x");
  for (int64_t i = 0; i < x.NumElements(); ++i) x.As<float>()[i] *= s;
}

void FakeQuantInt8(const ExecContext&, const TensorView& x, float s) {
  internal::CheckDType(x, DType::kF32, "FakeQuantInt8 x");
  GEMMAD_CHECK(s > 0.0f && std::isfinite(s), "FakeQuantInt8: scale {}", s);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.As<float>()[i] = tensor::RoundClampInt8(x.As<float>()[i] / s) * s;
}

void Mul(const ExecContext&, const TensorView& a, const TensorView& b, const TensorView& out) {
  CheckF32Pair(a, b, "Mul");
  CheckF32Pair(a, out, "Mul");
  for (int64_t i = 0; i < a.NumElements(); ++i) out.As<float>()[i] = a.As<const float>()[i] * b.As<const float>()[i];
}

void Clamp(const ExecContext&, const TensorView& x, float lo, float hi, const TensorView& out) {
  internal::CheckClamp(x, lo, hi, out);
  for (int64_t i = 0; i < x.NumElements(); ++i) out.As<float>()[i] = internal::ClampOne(x.As<const float>()[i], lo, hi);
}

void ExpShifted(const ExecContext&, const TensorView& x, float shift, float scale, const TensorView& out) {
  CheckF32Pair(x, out, "ExpShifted");
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double a = (static_cast<double>(x.As<const float>()[i]) - shift) * scale;
    out.As<float>()[i] = a < kExpShiftedFloor || std::isnan(a) ? 0.0f : static_cast<float>(std::exp(a));
  }
}

void Copy(const ExecContext&, const TensorView& src, const TensorView& dst) {
  internal::CheckCopyable(src, dst, "Copy");
  GEMMAD_CHECK(src.NumElements() == dst.NumElements(), "Copy: {} -> {}", src.shape.ToString(), dst.shape.ToString());
  const auto size = static_cast<int64_t>(tensor::DTypeSize(src.dtype));
  for (int64_t i = 0; i < src.NumElements(); ++i) CopyElement(src, i, dst, i, size);
}

void GatherRows(const ExecContext&, const TensorView& x, const TensorView& rows, const TensorView& out) {
  const internal::RowGather g = internal::CheckGatherRows(x, rows, out);
  const int64_t w = x.shape[1];
  const auto size = static_cast<int64_t>(tensor::DTypeSize(x.dtype));
  for (int64_t i = 0; i < g.num_rows; ++i) {
    for (int64_t j = 0; j < w; ++j) CopyElement(x, g.rows[i] * w + j, out, i * w + j, size);
  }
}

void SliceColumns(const ExecContext&, const TensorView& x, int64_t begin, const TensorView& out) {
  const internal::ColumnSlice s = internal::CheckSliceColumns(x, begin, out);
  const int64_t width = x.shape[1], w = out.shape[1];
  for (int64_t t = 0; t < s.num_rows; ++t) {
    for (int64_t j = 0; j < w; ++j) CopyElement(x, t * width + begin + j, out, t * w + j, s.elem_bytes);
  }
}

}  // namespace gemmad::kernels::reference::op
