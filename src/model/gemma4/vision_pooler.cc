// The vision tower's pooler, standardize and projection (multimodal.md §3.7–3.9).
#include <cmath>

#include "kernels/ops.h"
#include "model/gemma4/mm_projector.h"
#include "model/gemma4/vision_blocks.h"

namespace gemmad::model::gemma4::vision {
namespace {

using tensor::TensorView;

// Elements [begin, begin + n) of a rank-1 view.
TensorView Slice(const TensorView& v, int64_t begin, int64_t n) {
  TensorView out = v;
  out.data = static_cast<char*>(v.data) + begin * static_cast<int64_t>(tensor::DTypeSize(v.dtype));
  out.shape = {n};
  return out;
}

}  // namespace

void Pool(const kernels::ExecContext& ctx, const VisionConfig& c, const PlanViews& pv, const TensorView& h, Buffers& b,
          const TensorView& pooled) {
  const int64_t N = pooled.shape[0], dv = pooled.shape[1], kk = c.pooling_kernel_size * c.pooling_kernel_size;
  const TensorView tmp = b.tmp.View({N, dv});
  for (int64_t o = 0; o < kk; ++o) {
    kernels::GatherRows(ctx, h, Slice(pv.pool_rows, o * N, N), o == 0 ? pooled : tmp);
    if (o > 0) kernels::Add(ctx, pooled, tmp, pooled);
  }
  // The average always divides by k² (§3.7), then × sqrt(Dv).
  kernels::Scale(ctx, pooled, static_cast<float>(std::sqrt(static_cast<double>(dv)) / static_cast<double>(kk)));
}

void Standardize(const kernels::ExecContext& ctx, const VisionWeights& w, const PlanViews& pv, Buffers& b,
                 const TensorView& pooled) {
  const TensorView rows = b.tmp.View(pooled.shape);
  kernels::GatherRows(ctx, w.std_bias_neg, pv.zeros, rows);  // −std_bias on every row
  kernels::Add(ctx, pooled, rows, pooled);
  kernels::GatherRows(ctx, w.std_scale, pv.zeros, rows);
  kernels::Mul(ctx, pooled, rows, pooled);
}

void Project(const kernels::ExecContext& ctx, const VisionConfig& c, const VisionWeights& w, const TensorView& pooled,
             Buffers& b, const TensorView& out) {
  ProjectToText(ctx, pooled, w.projection, static_cast<float>(c.rms_norm_eps), b.normed, out);
}

}  // namespace gemmad::model::gemma4::vision
