// ProjectToText (see mm_projector.h).
#include "model/gemma4/mm_projector.h"

#include "kernels/ops.h"

namespace gemmad::model::gemma4 {

void ProjectToText(const kernels::ExecContext& ctx, const tensor::TensorView& x, const tensor::TensorView& projection,
                   float eps, Scratch& normed, const tensor::TensorView& out) {
  const tensor::TensorView n = normed.View(x.shape);
  kernels::RmsNorm(ctx, x, tensor::TensorView{}, n, eps);
  kernels::Linear(ctx, n, projection, out);
}

}  // namespace gemmad::model::gemma4
