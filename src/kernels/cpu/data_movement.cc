// Data movement ops: copy, row gather (also in-place compaction), column slice. Memory-bound
// row copies on the calling thread: the rows are few (logit rows, one layer's slice).
#include <cstring>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/op_contracts.h"

namespace gemmad::kernels::cpu {

void Copy(const ExecContext&, const TensorView& src, const TensorView& dst) {
  internal::CheckCopyable(src, dst, "Copy");
  GEMMAD_CHECK(src.NumElements() == dst.NumElements(), "Copy: {} -> {}", src.shape.ToString(), dst.shape.ToString());
  if (src.data != dst.data) std::memmove(dst.data, src.data, src.SizeBytes());
}

void GatherRows(const ExecContext&, const TensorView& x, const TensorView& rows, const TensorView& out) {
  const internal::RowGather g = internal::CheckGatherRows(x, rows, out);
  const auto* src = static_cast<const char*>(x.data);
  auto* dst = static_cast<char*>(out.data);
  for (int64_t i = 0; i < g.num_rows; ++i) {
    const int64_t r = g.rows[i];
    if (src + r * g.row_bytes != dst + i * g.row_bytes) {
      std::memmove(dst + i * g.row_bytes, src + r * g.row_bytes, static_cast<size_t>(g.row_bytes));
    }
  }
}

void SliceColumns(const ExecContext&, const TensorView& x, int64_t begin, const TensorView& out) {
  const internal::ColumnSlice s = internal::CheckSliceColumns(x, begin, out);
  const auto* src = static_cast<const char*>(x.data) + begin * s.elem_bytes;
  auto* dst = static_cast<char*>(out.data);
  for (int64_t t = 0; t < s.num_rows; ++t) {
    std::memcpy(dst + t * s.out_row_bytes, src + t * s.in_row_bytes, static_cast<size_t>(s.out_row_bytes));
  }
}

}  // namespace gemmad::kernels::cpu
