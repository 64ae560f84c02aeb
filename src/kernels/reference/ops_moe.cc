// Reference backend: MoE routing (reference::MoeRoute) and the experts, token by token: each routed
// expert's GeGLU through the reference Linear of its slices (so quantized experts meet quantized
// activations as in the CPU backend), summed in double.
#include <vector>

#include "kernels/reference/activation.h"
#include "kernels/reference/backend_ops.h"
#include "kernels/reference/moe.h"
#include "kernels/op_contracts.h"

namespace gemmad::kernels::reference::op {
namespace {

using tensor::DType;

TensorView F32(std::vector<float>& v, int64_t rows, int64_t cols) {
  v.resize(static_cast<size_t>(rows * cols));
  return TensorView{v.data(), DType::kF32, tensor::Shape{rows, cols}};
}

// Expert e's matrix of a [E, rows, cols] stack.
TensorView Expert(const TensorView& w, int64_t e) {
  GEMMAD_CHECK(w.dtype != DType::kQ4_0 || w.shape[1] % 2 == 0, "MoeExperts: Q4_0 experts of {} rows", w.shape[1]);
  TensorView v = w;
  v.shape = tensor::Shape{w.shape[1], w.shape[2]};
  v.data = static_cast<char*>(w.data) + static_cast<size_t>(e * w.shape[1]) * tensor::RowBytes(w.dtype, w.shape[2]);
  return v;
}

}  // namespace

void MoeRoute(const ExecContext&, const TensorView& logits, const TensorView& per_expert_scale,
              const TensorView& weights, const TensorView& ids) {
  const internal::RouteShape shape = internal::CheckMoeRoute(logits, per_expert_scale, weights, ids);
  const int64_t n = shape.n, num_experts = shape.num_experts, top_k = shape.top_k;
  const std::vector<float> scale = Widen(per_expert_scale);
  reference::MoeRoute(logits.As<const float>(), n, num_experts, top_k, scale.data(), weights.As<float>(),
                      ids.As<int32_t>());
}

void MoeExperts(const ExecContext& ctx, const TensorView& x, const TensorView& gate_up, const TensorView& down,
                const TensorView& weights, const TensorView& ids, const TensorView& out) {
  const internal::ExpertsShape shape = internal::CheckMoeExperts(x, gate_up, down, weights, ids, out);
  const int64_t n = shape.n, hidden = shape.hidden, num_experts = shape.num_experts, inter = shape.inter;
  const int64_t top_k = shape.top_k;
  std::vector<float> gu_buf, act_buf, y_buf;
  std::vector<double> acc(static_cast<size_t>(hidden));
  for (int64_t t = 0; t < n; ++t) {
    std::fill(acc.begin(), acc.end(), 0.0);
    TensorView xt{x.As<float>() + t * hidden, DType::kF32, tensor::Shape{1, hidden}};
    for (int64_t k = 0; k < top_k; ++k) {
      const int32_t e = ids.As<const int32_t>()[t * top_k + k];
      GEMMAD_CHECK(e >= 0 && e < num_experts, "MoeExperts: expert id {}", e);
      const TensorView gu = F32(gu_buf, 1, 2 * inter), act = F32(act_buf, 1, inter), y = F32(y_buf, 1, hidden);
      op::Linear(ctx, xt, Expert(gate_up, e), gu);
      reference::GeluTanhMul(gu.As<const float>(), gu.As<const float>() + inter, act.As<float>(), inter);
      op::Linear(ctx, act, Expert(down, e), y);
      const double w = weights.As<const float>()[t * top_k + k];
      for (int64_t o = 0; o < hidden; ++o) acc[static_cast<size_t>(o)] += w * y.As<const float>()[o];
    }
    for (int64_t o = 0; o < hidden; ++o) out.As<float>()[t * hidden + o] = static_cast<float>(acc[static_cast<size_t>(o)]);
  }
}

}  // namespace gemmad::kernels::reference::op
