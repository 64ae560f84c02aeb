// The audio tower's conformer block (multimodal.md §4.4–§4.5): macaron FFN, chunked local
// attention with relative positions, light conv (GLU, causal depthwise conv), FFN, output norm.
// clip(x) is the reference's clamp to ±min(gradient_clipping, FLT_MAX).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/ops.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/audio_blocks.h"

namespace gemmad::model::gemma4::audio {
namespace {

using tensor::TensorView;

float ClipBound(const AudioConfig& c) {
  return static_cast<float>(std::min(c.gradient_clipping, static_cast<double>(std::numeric_limits<float>::max())));
}

// out = RMSNorm_w(clip(x)) (out may alias x).
void ClipNorm(const kernels::ExecContext& ctx, const AudioConfig& c, const TensorView& x, const TensorView& weight,
              const TensorView& out, float eps) {
  const float g = ClipBound(c);
  kernels::Clamp(ctx, x, -g, g, out);
  kernels::RmsNorm(ctx, out, weight, out, eps);
}

void One(const kernels::ExecContext& ctx, const TensorView& x, const ClippedLinear& l, const TensorView& y) {
  const ClippedLinear* ls[] = {&l};
  ClippedLinears(ctx, x, ls, std::span<const TensorView>(&y, 1), nullptr, LinearKernel::kGemm);  // clamps x in place
}

// h += residual_weight · RMSNorm(clip(down(silu(up(RMSNorm(clip(h))))))).
void FeedForward(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioFeedForwardWeights& w, Buffers& b,
                 const TensorView& h) {
  const int64_t t = h.shape[0], d = h.shape[1];
  const TensorView normed = b.normed.View({t, d}), wide = b.wide.View({t, 4 * d}), branch = b.branch.View({t, d});
  ClipNorm(ctx, c, h, w.pre_norm, normed, kFixedNormEps);
  One(ctx, normed, w.up, wide);
  kernels::Silu(ctx, wide, wide);
  One(ctx, wide, w.down, branch);
  ClipNorm(ctx, c, branch, w.post_norm, branch, kFixedNormEps);
  kernels::Scale(ctx, branch, static_cast<float>(c.residual_weight));
  kernels::Add(ctx, h, branch, h);
}

// h += RMSNorm(clip(post(ChunkedAttention(RMSNorm(clip(h)))))).
void Attention(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioLayerWeights& w,
               const TensorView& pe, Buffers& b, const TensorView& h) {
  const int64_t t = h.shape[0], d = h.shape[1], heads = c.num_attention_heads, dh = c.head_dim();
  const int64_t l = pe.shape[0];
  const TensorView normed = b.normed.View({t, d});
  ClipNorm(ctx, c, h, w.norm_pre_attn, normed, kFixedNormEps);
  const TensorView q = b.q.View({t, d}), k = b.k.View({t, d}), v = b.v.View({t, d});
  const ClippedLinear* qkv[] = {&w.q, &w.k, &w.v};
  const TensorView qkv_out[] = {q, k, v};
  ClippedLinears(ctx, normed, qkv, qkv_out, &b.clipped, LinearKernel::kGemm);
  const TensorView rel_k = b.rel_k.View({l, d});
  kernels::Linear(ctx, pe, w.relative_k, rel_k);
  kernels::ChunkedAttentionParams p;
  p.chunk = c.attention_chunk_size, p.past = c.max_past(), p.future = c.attention_context_right;
  p.k_scale = static_cast<float>(std::log(1.0 + std::exp(1.0)) / std::log(2.0));
  p.cap = static_cast<float>(c.attention_logit_cap);
  p.invalid = static_cast<float>(c.attention_invalid_logits_value);
  const tensor::Shape heads_shape{t, heads, dh};
  const TensorView attn = b.attn.View(heads_shape);
  kernels::ChunkedAttention(ctx, Reshape(q, heads_shape), w.q_scale, Reshape(k, heads_shape), Reshape(v, heads_shape),
                            Reshape(rel_k, {l, heads, dh}), p, attn);
  const TensorView branch = b.branch.View({t, d});
  One(ctx, Reshape(attn, {t, d}), w.post, branch);
  ClipNorm(ctx, c, branch, w.norm_post_attn, branch, kFixedNormEps);
  kernels::Add(ctx, h, branch, h);
}

// h += linear_end(silu(RMSNorm(clip(dwconv(glu(linear_start(RMSNorm(h)))))))).
void LightConv(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioLayerWeights& w, Buffers& b,
               const TensorView& h) {
  const int64_t t = h.shape[0], d = h.shape[1];
  const auto eps = static_cast<float>(c.rms_norm_eps);
  const TensorView normed = b.normed.View({t, d}), wide = b.wide.View({t, 2 * d});
  kernels::RmsNorm(ctx, h, w.lconv_pre_norm, normed, eps);
  One(ctx, normed, w.linear_start, wide);
  const TensorView gated = b.q.View({t, d}), conv = b.k.View({t, d}), branch = b.branch.View({t, d});
  kernels::Glu(ctx, wide, gated);
  kernels::CausalDepthwiseConv1d(ctx, gated, w.depthwise, conv);
  ClipNorm(ctx, c, conv, w.conv_norm, conv, eps);
  kernels::Silu(ctx, conv, conv);
  One(ctx, conv, w.linear_end, branch);
  kernels::Add(ctx, h, branch, h);
}

}  // namespace

void ConformerLayer(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioLayerWeights& w,
                    const TensorView& pe, Buffers& b, const TensorView& h) {
  FeedForward(ctx, c, w.ffn1, b, h);
  Attention(ctx, c, w, pe, b, h);
  LightConv(ctx, c, w, b, h);
  FeedForward(ctx, c, w.ffn2, b, h);
  ClipNorm(ctx, c, h, w.norm_out, h, kFixedNormEps);
}

}  // namespace gemmad::model::gemma4::audio
