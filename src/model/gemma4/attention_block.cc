// Attention block of one layer (text-model.md §4, §5): input norm, Q (+ K, V on KV-owning
// layers) projections, per-head q/k norms and (Gemma 4) weightless v norm, RoPE, paged KV write,
// causal (sliding-window) attention with scale Config::attention_scale (Gemma 4 1.0, Gemma 3
// query_pre_attn_scalar^-0.5) over the layer's own or its donor's cache (an FP8 cache with the
// checkpoint's KV scales of the layer that owns it), o_proj, post-attention norm, residual add.
#include <span>

#include "kernels/ops.h"
#include "model/gemma4/kv_scales.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/layer_blocks.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::TensorView;

TensorView I32View(const std::vector<int32_t>& v) {
  TensorView t;
  t.data = const_cast<int32_t*>(v.data());
  t.dtype = tensor::DType::kI32;
  t.shape = tensor::Shape{static_cast<int64_t>(v.size())};
  return t;
}

TensorView I64View(const std::vector<int64_t>& v) {
  TensorView t;
  t.data = const_cast<int64_t*>(v.data());
  t.dtype = tensor::DType::kI64;
  t.shape = tensor::Shape{static_cast<int64_t>(v.size())};
  return t;
}

// Norm then rotate each head of `x` [n, heads, d] in place.
void NormAndRotate(const LayerContext& lc, TensorView x, const TensorView& norm_weight,
                   const std::vector<float>& inv_freq) {
  const int64_t n = x.shape[0], heads = x.shape[1], d = x.shape[2];
  TensorView rows = Reshape(x, {n * heads, d});
  kernels::RmsNorm(lc.exec, rows, norm_weight, rows, lc.eps);
  TensorView f;
  f.data = const_cast<float*>(inv_freq.data());
  f.dtype = tensor::DType::kF32;
  f.shape = tensor::Shape{static_cast<int64_t>(inv_freq.size())};
  kernels::RopeNeox(lc.exec, x, I32View(lc.batch.positions), f);
}

}  // namespace

void AttentionBlock(const LayerContext& lc, int64_t l) {
  const Config& c = lc.config;
  const LayerWeights& w = lc.weights.layers[l];
  const KvCacheSpec& spec = lc.cache.spec();
  const int64_t n = lc.batch.num_tokens(), H = c.hidden_size, nH = c.num_attention_heads;
  const int64_t d = c.layer_head_dim(l), nkv = c.layer_num_kv_heads(l);
  const std::vector<float>& inv_freq = c.is_sliding(l) ? lc.rope_sliding : lc.rope_full;
  const GroupPlan& gp = lc.plan.groups[spec.layer_group[l]];
  const tensor::DType cache_dtype = lc.cache.k(l).dtype;

  TensorView x = lc.buf.x.View({n, H});
  TensorView a = lc.buf.normed.View({n, H});
  kernels::RmsNorm(lc.exec, x, w.input_norm, a, lc.eps);

  // Q, and K/V on KV-owning layers, as one pass over the pool.
  TensorView q = lc.buf.q.View({n, nH * d});
  TensorView k = lc.buf.k.View({n, nkv * d});
  TensorView v = lc.buf.v.View({n, nkv * d});
  const bool owns = spec.owns_kv(l), separate_v = owns && w.v_proj.data != nullptr;
  const TensorView ws[3] = {w.q_proj, w.k_proj, w.v_proj};
  const TensorView ys[3] = {q, k, v};
  ProjLinearMany(lc, a, std::span(ws, owns ? (separate_v ? 3 : 2) : 1),
                      std::span(ys, owns ? (separate_v ? 3 : 2) : 1));
  q = Reshape(q, {n, nH, d});
  NormAndRotate(lc, q, w.q_norm, inv_freq);

  if (owns) {
    if (!separate_v) {  // attention_k_eq_v full layer: V is the raw K projection (before k_norm and RoPE)
      kernels::Copy(lc.exec, k, v);
    }
    k = Reshape(k, {n, nkv, d});
    NormAndRotate(lc, k, w.k_norm, inv_freq);
    if (c.v_norm) {
      TensorView v_rows = Reshape(v, {n * nkv, d});
      kernels::RmsNorm(lc.exec, v_rows, TensorView{}, v_rows, lc.eps);
    }
    if (lc.kv_calibration != nullptr && cache_dtype == tensor::DType::kF8E4M3) {
      CalibrateKvScales(k, v, l, lc.kv_calibration);  // --calculate-kv-scales: this layer's scales from these
    }
  }
  const kernels::KvScales kv_scales = KvScalesFor(lc.weights, spec, l, cache_dtype, lc.kv_calibration);
  if (owns) {
    kernels::KvCacheWrite(lc.exec, k, Reshape(v, {n, nkv, d}), I64View(gp.slots), lc.cache.k(l), lc.cache.v(l),
                          kv_scales);
  }

  PrefetchNext(lc, w.o_proj);
  TensorView attn = lc.buf.attn.View({n, nH, d});
  const int64_t window = c.is_sliding(l) ? c.sliding_window : 0;
  kernels::PagedAttention(lc.exec, q, lc.cache.k(l), lc.cache.v(l), gp.sequences, window,
                          static_cast<float>(c.attention_scale), attn, kv_scales);

  TensorView o = lc.buf.branch.View({n, H});
  ProjLinear(lc, Reshape(attn, {n, nH * d}), w.o_proj, o);
  PrefetchNext(lc, w.gate_proj);
  AllReduce(lc, o);  // tensor parallelism: each rank's heads contribute their part of o
  kernels::RmsNorm(lc.exec, o, w.post_attention_norm, o, lc.eps);
  kernels::Add(lc.exec, x, o, x);
}

}  // namespace gemmad::model::gemma4
