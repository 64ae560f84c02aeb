// MoE routing and experts. Experts are processed in ascending id; each expert's tokens are
// gathered into a small batch so its weights are streamed once per step (per-expert grouping).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/op_contracts.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

// A [rows, cols] view into `buf` (grown as needed).
TensorView Scratch(std::vector<float>& buf, int64_t rows, int64_t cols) {
  if (buf.size() < static_cast<size_t>(rows * cols)) buf.resize(static_cast<size_t>(rows * cols));
  TensorView v;
  v.data = buf.data();
  v.dtype = tensor::DType::kF32;
  v.shape = tensor::Shape{rows, cols};
  return v;
}

TensorView ExpertSlice(const TensorView& w, int64_t e) {
  // kQ4_0 stores rows in pairs: an expert's slice is a matrix of its own when its row count is even.
  GEMMAD_CHECK(w.dtype != tensor::DType::kQ4_0 || w.shape[1] % 2 == 0, "MoeExperts: Q4_0 experts of {} rows",
               w.shape[1]);
  TensorView v;
  v.dtype = w.dtype;
  v.shape = tensor::Shape{w.shape[1], w.shape[2]};
  v.data = static_cast<char*>(w.data) + static_cast<size_t>(e * w.shape[1]) * tensor::RowBytes(w.dtype, w.shape[2]);
  return v;
}

}  // namespace

void MoeRoute(const ExecContext& ctx, const TensorView& logits, const TensorView& per_expert_scale,
              const TensorView& weights, const TensorView& ids) {
  const internal::RouteShape shape = internal::CheckMoeRoute(logits, per_expert_scale, weights, ids);
  const int64_t n = shape.n, num_experts = shape.num_experts, top_k = shape.top_k;
  ParallelFor(ctx, n, 16, [&](int64_t b, int64_t e) {
    // Per-thread scratch that only grows: no allocation in a steady-state step.
    thread_local std::vector<float> prob;
    thread_local std::vector<int32_t> order;
    prob.resize(static_cast<size_t>(num_experts));
    order.resize(static_cast<size_t>(num_experts));
    for (int64_t t = b; t < e; ++t) {
      const float* l = logits.As<const float>() + t * num_experts;
      const float m = *std::max_element(l, l + num_experts);
      float sum = 0.0f;
      for (int64_t x = 0; x < num_experts; ++x) sum += prob[x] = std::exp(l[x] - m);
      for (int64_t x = 0; x < num_experts; ++x) prob[x] /= sum;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + top_k, order.end(), [&](int32_t a, int32_t c) {
        return prob[a] > prob[c] || (prob[a] == prob[c] && a < c);
      });
      float top_sum = 0.0f;
      for (int64_t k = 0; k < top_k; ++k) top_sum += prob[order[k]];
      for (int64_t k = 0; k < top_k; ++k) {
        const int32_t x = order[k];
        ids.As<int32_t>()[t * top_k + k] = x;
        weights.As<float>()[t * top_k + k] =
            prob[x] / top_sum * internal::LoadAsFloat(per_expert_scale.data, per_expert_scale.dtype, x);
      }
    }
  });
}

void MoeExperts(const ExecContext& ctx, const TensorView& x, const TensorView& gate_up, const TensorView& down,
                const TensorView& weights, const TensorView& ids, const TensorView& out) {
  const internal::ExpertsShape shape = internal::CheckMoeExperts(x, gate_up, down, weights, ids, out);
  const int64_t n = shape.n, hidden = shape.hidden, num_experts = shape.num_experts, inter = shape.inter;
  const int64_t top_k = shape.top_k;
  const int32_t* id = ids.As<const int32_t>();
  const float* w = weights.As<const float>();
  float* o = out.As<float>();
  std::fill(o, o + n * hidden, 0.0f);
  // (token, weight) lists per expert, tokens ascending.
  thread_local std::vector<std::vector<std::pair<int64_t, float>>> routed;  // cleared, capacity kept
  if (routed.size() < static_cast<size_t>(num_experts)) routed.resize(static_cast<size_t>(num_experts));
  for (auto& r : routed) r.clear();
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t k = 0; k < top_k; ++k) {
      GEMMAD_CHECK(id[t * top_k + k] >= 0 && id[t * top_k + k] < num_experts, "MoeExperts: expert id {}",
                   id[t * top_k + k]);
      routed[id[t * top_k + k]].push_back({t, w[t * top_k + k]});
    }
  }
  thread_local std::vector<float> xs_buf, gu_buf, act_buf, y_buf;
  for (int64_t e = 0; e < num_experts; ++e) {
    const auto& tokens = routed[e];
    if (tokens.empty()) continue;
    const int64_t m = static_cast<int64_t>(tokens.size());
    TensorView xs = Scratch(xs_buf, m, hidden);
    for (int64_t r = 0; r < m; ++r) {
      std::copy_n(x.As<const float>() + tokens[r].first * hidden, hidden, xs.As<float>() + r * hidden);
    }
    TensorView gu = Scratch(gu_buf, m, 2 * inter);
    cpu::Linear(ctx, xs, ExpertSlice(gate_up, e), gu);
    TensorView act = Scratch(act_buf, m, inter);
    const GeluTanhMulFn gelu = CpuKernels().gelu_tanh_mul;
    for (int64_t r = 0; r < m; ++r) {
      const float* g = gu.As<const float>() + r * 2 * inter;
      gelu(g, g + inter, act.As<float>() + r * inter, inter);
    }
    TensorView y = Scratch(y_buf, m, hidden);
    cpu::Linear(ctx, act, ExpertSlice(down, e), y);
    for (int64_t r = 0; r < m; ++r) {
      float* orow = o + tokens[r].first * hidden;
      const float* yr = y.As<const float>() + r * hidden;
      for (int64_t i = 0; i < hidden; ++i) orow[i] += yr[i] * tokens[r].second;
    }
  }
}

}  // namespace gemmad::kernels::cpu
