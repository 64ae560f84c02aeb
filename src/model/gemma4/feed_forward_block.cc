// Feed-forward part of a layer (text-model.md §4, §4.2, §8) and the in-layer PLE block (§7).
// MoE layers run the dense MLP and the routed experts side by side on the post-attention
// residual, each with its own pre/post norms; the router reads the un-normed residual.
#include <cmath>

#include "kernels/ops.h"
#include "model/gemma4/layer_blocks.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::TensorView;

// out = down(gelu_tanh(gate(a)) ⊙ up(a)).
void Mlp(const LayerContext& lc, const LayerWeights& w, const TensorView& a, int64_t width, const TensorView& out) {
  const int64_t n = a.shape[0];
  TensorView g = lc.buf.gate.View({n, width});
  TensorView u = lc.buf.up.View({n, width});
  const TensorView ws[2] = {w.gate_proj, w.up_proj};
  const TensorView ys[2] = {g, u};
  ProjLinearMany(lc, a, ws, ys);  // gate and up as one pass over the pool
  PrefetchNext(lc, w.down_proj);
  kernels::GeluTanhMul(lc.exec, g, u, g);
  ProjLinear(lc, g, w.down_proj, out);
  PrefetchNext(lc, w.ple_gate);
}

// out = post_feedforward_norm_2(Experts(pre_feedforward_norm_2(x))) with the router on x.
void Experts(const LayerContext& lc, const LayerWeights& w, const TensorView& x, const TensorView& out) {
  const Config& c = lc.config;
  const int64_t n = x.shape[0], H = c.hidden_size, E = c.num_experts, K = c.top_k_experts;
  TensorView z = lc.buf.normed.View({n, H});
  // Router: weightless norm, × router.scale, × H^-1/2 (the norm kernel applies the scale vector).
  kernels::RmsNorm(lc.exec, x, w.router_scale, z, lc.eps);
  kernels::Scale(lc.exec, z, static_cast<float>(1.0 / std::sqrt(static_cast<double>(H))));
  TensorView logits = lc.buf.router.View({n, E});
  kernels::Linear(lc.exec, z, w.router_proj, logits);
  TensorView rw = lc.buf.moe_weights.View({n, K});
  TensorView ri = lc.buf.moe_ids.View({n, K}, tensor::DType::kI32);
  kernels::MoeRoute(lc.exec, logits, w.per_expert_scale, rw, ri);
  kernels::RmsNorm(lc.exec, x, w.pre_feedforward_norm_2, z, lc.eps);
  kernels::MoeExperts(lc.exec, z, w.experts_gate_up, w.experts_down, rw, ri, out);
}

}  // namespace

void FeedForwardBlock(const LayerContext& lc, int64_t l) {
  const Config& c = lc.config;
  const LayerWeights& w = lc.weights.layers[l];
  const int64_t n = lc.batch.num_tokens(), H = c.hidden_size;
  TensorView x = lc.buf.x.View({n, H});
  TensorView a = lc.buf.normed.View({n, H});
  kernels::RmsNorm(lc.exec, x, w.pre_feedforward_norm, a, lc.eps);
  if (!c.enable_moe_block) {
    TensorView f = lc.buf.branch.View({n, H});
    Mlp(lc, w, a, c.layer_intermediate_size(l), f);
    AllReduce(lc, f);  // tensor parallelism: each rank's intermediate units contribute
    kernels::RmsNorm(lc.exec, f, w.post_feedforward_norm, f, lc.eps);
    kernels::Add(lc.exec, x, f, x);
    return;
  }
  // MoE: the dense and the expert branch [2, n, H] side by side, so that under tensor parallelism
  // one all-reduce sums both partials (each is normed on its own after the sum).
  TensorView both = lc.buf.branch2.View({2 * n, H});
  TensorView f = both, e = both;
  f.shape = e.shape = tensor::Shape{n, H};
  e.data = both.As<float>() + n * H;
  Mlp(lc, w, a, c.layer_intermediate_size(l), f);
  Experts(lc, w, x, e);
  AllReduce(lc, both);
  kernels::RmsNorm(lc.exec, f, w.post_feedforward_norm_1, f, lc.eps);
  kernels::RmsNorm(lc.exec, e, w.post_feedforward_norm_2, e, lc.eps);
  kernels::Add(lc.exec, f, e, f);
  kernels::RmsNorm(lc.exec, f, w.post_feedforward_norm, f, lc.eps);
  kernels::Add(lc.exec, x, f, x);
}

void PerLayerInputBlock(const LayerContext& lc, int64_t l) {
  const Config& c = lc.config;
  const LayerWeights& w = lc.weights.layers[l];
  const int64_t n = lc.batch.num_tokens(), H = c.hidden_size, P = c.hidden_size_per_layer_input;
  const int64_t L = c.num_hidden_layers;
  TensorView x = lc.buf.x.View({n, H});
  TensorView g = lc.buf.ple_gate.View({n, P});
  ProjLinear(lc, x, w.ple_gate, g);
  PrefetchNext(lc, w.ple_projection);
  // This layer's slice of the per-layer inputs [N, L, P] made contiguous: [N, P].
  TensorView slice = lc.buf.ple_slice.View({n, P});
  kernels::SliceColumns(lc.exec, lc.buf.ple.View({n, L * P}), l * P, slice);
  kernels::GeluTanhMul(lc.exec, g, slice, g);
  TensorView p = lc.buf.branch.View({n, H});
  ProjLinear(lc, g, w.ple_projection, p);
  if (l + 1 < L) PrefetchNext(lc, lc.weights.layers[l + 1].q_proj);
  kernels::RmsNorm(lc.exec, p, w.ple_post_norm, p, lc.eps);
  kernels::Add(lc.exec, x, p, x);
}

}  // namespace gemmad::model::gemma4
