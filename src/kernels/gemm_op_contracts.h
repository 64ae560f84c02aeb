// LinearGemm's and PackGemmWeights' contract checks (kernels/ops.h), run by both backends.
// Internal to kernels/.
#pragma once

#include <cstdint>

#include "kernels/ops.h"
#include "kernels/view_checks.h"

namespace gemmad::kernels::internal {

using kernels::kGemmPanelCols;  // columns of wᵀ per packed panel

struct LinearGemmShape {
  int64_t n, in, out;
  bool packed;  // w is [ceil(out / 32), in, 32]
};
inline LinearGemmShape CheckLinearGemm(const tensor::TensorView& x, const tensor::TensorView& w,
                                       const tensor::TensorView& y) {
  CheckDType(x, tensor::DType::kF32, "LinearGemm x");
  CheckDType(w, tensor::DType::kF32, "LinearGemm w");
  CheckDType(y, tensor::DType::kF32, "LinearGemm y");
  CheckRank(x, 2, "LinearGemm x");
  CheckRank(y, 2, "LinearGemm y");
  GEMMAD_CHECK(w.shape.rank == 2 || w.shape.rank == 3, "LinearGemm w: shape {} (want rank 2 or 3)", w.shape.ToString());
  const LinearGemmShape s{x.shape[0], x.shape[1], y.shape[1], w.shape.rank == 3};
  const bool ok = s.packed ? (w.shape[0] == (s.out + kGemmPanelCols - 1) / kGemmPanelCols && w.shape[1] == s.in &&
                              w.shape[2] == kGemmPanelCols)
                           : (w.shape[0] == s.out && w.shape[1] == s.in);
  GEMMAD_CHECK(ok && y.shape[0] == s.n && x.data != y.data, "LinearGemm: x {} w {} y {}", x.shape.ToString(),
               w.shape.ToString(), y.shape.ToString());
  return s;
}

// PackGemmWeights: out and in.
struct PackGemmShape {
  int64_t out, in;
};
inline PackGemmShape CheckPackGemmWeights(const tensor::TensorView& w, const tensor::TensorView& packed) {
  CheckDType(w, tensor::DType::kF32, "PackGemmWeights w");
  CheckDType(packed, tensor::DType::kF32, "PackGemmWeights packed");
  CheckRank(w, 2, "PackGemmWeights w");
  CheckRank(packed, 3, "PackGemmWeights packed");
  const PackGemmShape s{w.shape[0], w.shape[1]};
  GEMMAD_CHECK(packed.shape[0] == (s.out + kGemmPanelCols - 1) / kGemmPanelCols && packed.shape[1] == s.in &&
                   packed.shape[2] == kGemmPanelCols && w.data != packed.data,
               "PackGemmWeights: w {} packed {}", w.shape.ToString(), packed.shape.ToString());
  return s;
}

// Element (row r, column k) of w from its packed form.
inline float PackedWeight(const float* packed, int64_t in, int64_t r, int64_t k) {
  return packed[((r / kGemmPanelCols) * in + k) * kGemmPanelCols + r % kGemmPanelCols];
}

}  // namespace gemmad::kernels::internal
