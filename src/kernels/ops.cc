// The ops.h entry points: each checks that its views live on the backend's device, then makes one
// indirect call through the backend's op table.
#include "kernels/ops.h"

#include <initializer_list>

#include "kernels/backend.h"
#include "kernels/view_checks.h"

namespace gemmad::kernels {
namespace {

// Every view with data is on the backend's device (a weightless norm passes a null view).
void CheckOn(const Backend& b, const char* op, std::initializer_list<const TensorView*> views) {
  for (const TensorView* v : views) {
    GEMMAD_CHECK(v->data == nullptr || v->device == b.device, "{}: a view on {} given to the {} backend ({})", op,
                 v->device.ToString(), b.name, b.device.ToString());
  }
}

}  // namespace

const Backend& BackendOf(const ExecContext& ctx) { return ctx.backend != nullptr ? *ctx.backend : CpuBackend(); }

Allocator& ScratchAllocatorOf(const ExecContext& ctx) {
  return ctx.scratch != nullptr ? *ctx.scratch : *BackendOf(ctx).allocator;
}

void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Linear", {&x, &w, &y});
  b.ops->linear(ctx, x, w, y);
}

void LinearMany(const ExecContext& ctx, const TensorView& x, std::span<const TensorView> ws,
                std::span<const TensorView> ys) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "LinearMany", {&x});
  for (const TensorView& w : ws) CheckOn(b, "LinearMany", {&w});
  for (const TensorView& y : ys) CheckOn(b, "LinearMany", {&y});
  b.ops->linear_many(ctx, x, ws, ys);
}

void LinearStaticInt8(const ExecContext& ctx, const TensorView& x, float s, const TensorView& w, const TensorView& y) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "LinearStaticInt8", {&x, &w, &y});
  b.ops->linear_static_int8(ctx, x, s, w, y);
}

void LinearStaticInt8Many(const ExecContext& ctx, const TensorView& x, std::span<const float> s,
                          std::span<const TensorView> ws, std::span<const TensorView> ys) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "LinearStaticInt8Many", {&x});
  for (const TensorView& w : ws) CheckOn(b, "LinearStaticInt8Many", {&w});
  for (const TensorView& y : ys) CheckOn(b, "LinearStaticInt8Many", {&y});
  b.ops->linear_static_int8_many(ctx, x, s, ws, ys);
}

void LinearGemm(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "LinearGemm", {&x, &w, &y});
  b.ops->linear_gemm(ctx, x, w, y);
}

void PackGemmWeights(const ExecContext& ctx, const TensorView& w, const TensorView& packed) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "PackGemmWeights", {&w, &packed});
  b.ops->pack_gemm_weights(ctx, w, packed);
}

void QuantizeWeights(const ExecContext& ctx, const TensorView& src, const TensorView& dst) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "QuantizeWeights", {&src, &dst});
  b.ops->quantize_weights(ctx, src, dst);
}

tensor::DType Int4WeightDType(const ExecContext& ctx, const tensor::Shape& shape) {
  return BackendOf(ctx).ops->int4_weight_dtype(ctx, shape);
}

void RmsNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight, const TensorView& out,
             float eps) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "RmsNorm", {&x, &weight, &out});
  b.ops->rms_norm(ctx, x, weight, out, eps);
}

void RopeNeox(const ExecContext& ctx, const TensorView& x, const TensorView& positions, const TensorView& inv_freq) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "RopeNeox", {&x, &positions, &inv_freq});
  b.ops->rope_neox(ctx, x, positions, inv_freq);
}

void GeluTanhMul(const ExecContext& ctx, const TensorView& gate, const TensorView& up, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "GeluTanhMul", {&gate, &up, &out});
  b.ops->gelu_tanh_mul(ctx, gate, up, out);
}

void SoftCap(const ExecContext& ctx, const TensorView& x, float cap) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "SoftCap", {&x});
  b.ops->soft_cap(ctx, x, cap);
}

void Softmax(const ExecContext& ctx, const TensorView& x) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Softmax", {&x});
  b.ops->softmax(ctx, x);
}

void Add(const ExecContext& ctx, const TensorView& a, const TensorView& bv, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Add", {&a, &bv, &out});
  b.ops->add(ctx, a, bv, out);
}

void Scale(const ExecContext& ctx, const TensorView& x, float s) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Scale", {&x});
  b.ops->scale(ctx, x, s);
}

void FakeQuantInt8(const ExecContext& ctx, const TensorView& x, float s) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "FakeQuantInt8", {&x});
  b.ops->fake_quant_int8(ctx, x, s);
}

void Mul(const ExecContext& ctx, const TensorView& a, const TensorView& bv, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Mul", {&a, &bv, &out});
  b.ops->mul(ctx, a, bv, out);
}

void Clamp(const ExecContext& ctx, const TensorView& x, float lo, float hi, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Clamp", {&x, &out});
  b.ops->clamp(ctx, x, lo, hi, out);
}

void ExpShifted(const ExecContext& ctx, const TensorView& x, float shift, float scale, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "ExpShifted", {&x, &out});
  b.ops->exp_shifted(ctx, x, shift, scale, out);
}

void Copy(const ExecContext& ctx, const TensorView& src, const TensorView& dst) {
  const Backend& b = BackendOf(ctx);
  for (const TensorView* v : {&src, &dst}) {
    GEMMAD_CHECK(v->device == b.device || v->device == tensor::kHost, "Copy: a view on {} given to the {} backend",
                 v->device.ToString(), b.name);
  }
  b.ops->copy(ctx, src, dst);
}

void GatherRows(const ExecContext& ctx, const TensorView& x, const TensorView& rows, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "GatherRows", {&x, &rows, &out});
  b.ops->gather_rows(ctx, x, rows, out);
}

void SliceColumns(const ExecContext& ctx, const TensorView& x, int64_t begin, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "SliceColumns", {&x, &out});
  b.ops->slice_columns(ctx, x, begin, out);
}

void EmbeddingGather(const ExecContext& ctx, const TensorView& table, const TensorView& ids, float scale,
                     const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "EmbeddingGather", {&table, &ids, &out});
  b.ops->embedding_gather(ctx, table, ids, scale, out);
}

void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache, const KvScales& scales) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "KvCacheWrite", {&k, &v, &slots, &k_cache, &v_cache});
  internal::CheckKvScales(k_cache, scales.k, scales.v, "KvCacheWrite");
  b.ops->kv_cache_write(ctx, k, v, slots, k_cache, v_cache, scales);
}

void PagedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k_cache, const TensorView& v_cache,
                    std::span<const AttentionSequence> sequences, int64_t window, float scale,
                    const TensorView& out, const KvScales& scales) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "PagedAttention", {&q, &k_cache, &v_cache, &out});
  internal::CheckKvScales(k_cache, scales.k, scales.v, "PagedAttention");
  b.ops->paged_attention(ctx, q, k_cache, v_cache, sequences, window, scale, out, scales);
}

void DenseAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                    float scale, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "DenseAttention", {&q, &k, &v, &out});
  b.ops->dense_attention(ctx, q, k, v, scale, out);
}

void MoeRoute(const ExecContext& ctx, const TensorView& logits, const TensorView& per_expert_scale,
              const TensorView& weights, const TensorView& ids) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "MoeRoute", {&logits, &per_expert_scale, &weights, &ids});
  b.ops->moe_route(ctx, logits, per_expert_scale, weights, ids);
}

void MoeExperts(const ExecContext& ctx, const TensorView& x, const TensorView& gate_up, const TensorView& down,
                const TensorView& weights, const TensorView& ids, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "MoeExperts", {&x, &gate_up, &down, &weights, &ids, &out});
  b.ops->moe_experts(ctx, x, gate_up, down, weights, ids, out);
}

void Silu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Silu", {&x, &out});
  b.ops->silu(ctx, x, out);
}

void Relu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Relu", {&x, &out});
  b.ops->relu(ctx, x, out);
}

void Glu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Glu", {&x, &out});
  b.ops->glu(ctx, x, out);
}

void LayerNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight, const TensorView& out,
               float eps) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "LayerNorm", {&x, &weight, &out});
  b.ops->layer_norm(ctx, x, weight, out, eps);
}

void Im2Col(const ExecContext& ctx, const TensorView& x, int64_t kernel, int64_t stride, int64_t pad,
            const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "Im2Col", {&x, &out});
  b.ops->im2col(ctx, x, kernel, stride, pad, out);
}

void CausalDepthwiseConv1d(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "CausalDepthwiseConv1d", {&x, &w, &out});
  b.ops->causal_depthwise_conv1d(ctx, x, w, out);
}

void ChunkedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& q_scale, const TensorView& k,
                      const TensorView& v, const TensorView& rel_k, const ChunkedAttentionParams& params,
                      const TensorView& out) {
  const Backend& b = BackendOf(ctx);
  CheckOn(b, "ChunkedAttention", {&q, &q_scale, &k, &v, &rel_k, &out});
  b.ops->chunked_attention(ctx, q, q_scale, k, v, rel_k, params, out);
}

}  // namespace gemmad::kernels
