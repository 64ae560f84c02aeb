// The vision tower's patch embedding, clippable linears and encoder layer (multimodal.md §3.2–3.6).
#include <algorithm>

#include "kernels/ops.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/vision_blocks.h"

namespace gemmad::model::gemma4::vision {
namespace {

using tensor::DType;
using tensor::TensorView;

// MLP rows per pass: bounds the [rows, I] gate/up buffers (4304 wide on the large tower).
constexpr int64_t kMlpRows = 2048;

// Rows [r0, r0 + n) of a rank-2 f32 view.
TensorView Rows(const TensorView& v, int64_t r0, int64_t n) {
  TensorView out = v;
  out.data = v.As<float>() + r0 * v.shape[1];
  out.shape = {n, v.shape[1]};
  return out;
}

}  // namespace

void PatchEmbed(const kernels::ExecContext& ctx, const VisionWeights& w, const PlanViews& pv, const TensorView& pixels,
                Buffers& b, const TensorView& h) {
  const int64_t P = h.shape[0], dv = h.shape[1];
  const TensorView pe = b.pe.View({P, dv}), tmp = b.tmp.View({P, dv});
  kernels::EmbeddingGather(ctx, w.pos_x, pv.xs, 1.0f, pe);   // table_x[x] − input_proj·1
  kernels::EmbeddingGather(ctx, w.pos_y, pv.ys, 1.0f, tmp);  // table_y[y]
  kernels::Add(ctx, pe, tmp, pe);
  kernels::Linear(ctx, pixels, w.input_proj, h);  // pixels · (2·input_proj)ᵀ
  kernels::Add(ctx, h, pe, h);
}

void EncoderLayer(const kernels::ExecContext& ctx, const VisionConfig& c, const VisionLayerWeights& w,
                  const TensorView& inv_freq, const PlanViews& pv, Buffers& b, const TensorView& h) {
  const int64_t P = h.shape[0], dv = c.hidden_size, H = c.num_attention_heads, Hkv = c.num_key_value_heads;
  const int64_t dh = c.head_dim, inter = c.intermediate_size;
  const auto eps = static_cast<float>(c.rms_norm_eps);
  const TensorView none;  // the weightless norm
  // Attention block.
  const TensorView normed = b.normed.View({P, dv});
  kernels::RmsNorm(ctx, h, w.input_norm, normed, eps);
  const TensorView q = b.q.View({P, H * dh}), k = b.k.View({P, Hkv * dh}), v = b.v.View({P, Hkv * dh});
  const ClippedLinear* qkv[] = {&w.q, &w.k, &w.v};
  const TensorView qkv_out[] = {q, k, v};
  ClippedLinears(ctx, normed, qkv, qkv_out, &b.clipped);
  kernels::RmsNorm(ctx, Reshape(q, {P * H, dh}), w.q_norm, Reshape(q, {P * H, dh}), eps);
  kernels::RmsNorm(ctx, Reshape(k, {P * Hkv, dh}), w.k_norm, Reshape(k, {P * Hkv, dh}), eps);
  kernels::RmsNorm(ctx, Reshape(v, {P * Hkv, dh}), none, Reshape(v, {P * Hkv, dh}), eps);
  // 2-D RoPE: each half-head is a "head" of dh/2 lanes with its own position (x, then y).
  kernels::RopeNeox(ctx, Reshape(q, {P * H * 2, 1, dh / 2}), pv.rope_q, inv_freq);
  kernels::RopeNeox(ctx, Reshape(k, {P * Hkv * 2, 1, dh / 2}), pv.rope_kv, inv_freq);
  const TensorView attn = b.attn.View({P, H, dh});
  kernels::DenseAttention(ctx, Reshape(q, {P, H, dh}), Reshape(k, {P, Hkv, dh}), Reshape(v, {P, Hkv, dh}), 1.0f, attn);
  const TensorView branch = b.branch.View({P, dv});
  const ClippedLinear* o[] = {&w.o};
  ClippedLinears(ctx, Reshape(attn, {P, H * dh}), o, std::span<const TensorView>(&branch, 1), nullptr);
  kernels::RmsNorm(ctx, branch, w.post_attention_norm, branch, eps);
  kernels::Add(ctx, h, branch, h);
  // MLP block, in row chunks.
  kernels::RmsNorm(ctx, h, w.pre_feedforward_norm, normed, eps);
  const ClippedLinear* gate_up[] = {&w.gate, &w.up};
  const ClippedLinear* down[] = {&w.down};
  for (int64_t r0 = 0; r0 < P; r0 += kMlpRows) {
    const int64_t n = std::min(kMlpRows, P - r0);
    const TensorView gate = b.gate.View({n, inter}), up = b.up.View({n, inter});
    const TensorView gu_out[] = {gate, up};
    ClippedLinears(ctx, Rows(normed, r0, n), gate_up, gu_out, &b.clipped);
    kernels::GeluTanhMul(ctx, gate, up, gate);
    const TensorView rows = Rows(branch, r0, n);
    ClippedLinears(ctx, gate, down, std::span<const TensorView>(&rows, 1), nullptr);
  }
  kernels::RmsNorm(ctx, branch, w.post_feedforward_norm, branch, eps);
  kernels::Add(ctx, h, branch, h);
}

}  // namespace gemmad::model::gemma4::vision
