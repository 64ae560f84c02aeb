// Assistant: weights by name (§12.2) and the draft step (§12.3, §12.4).
#include "model/gemma4/assistant.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "kernels/ops.h"
#include "model/gemma4/rope_table.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;
using tensor::TensorView;

TensorView F32(float* p, tensor::Shape s) {
  TensorView v;
  v.data = p;
  v.dtype = DType::kF32;
  v.shape = std::move(s);
  return v;
}

Result<TensorView> Bind(const WeightSource& src, const std::string& name, std::vector<int64_t> shape) {
  GEMMAD_ASSIGN_OR_RETURN(TensorView v, src.View(name));
  if (std::vector<int64_t>(v.shape.dims.begin(), v.shape.dims.begin() + v.shape.rank) != shape) {
    return InvalidArgumentError(fmt::format("{}: {} has shape {}, expected [{}]", src.label(), name, v.shape.ToString(),
                                            fmt::join(shape, ", ")));
  }
  if (v.dtype != DType::kF32 && v.dtype != DType::kBF16) {
    return InvalidArgumentError(fmt::format("{}: {} has dtype {}, expected F32 or BF16", src.label(), name,
                                            tensor::DTypeName(v.dtype)));
  }
  return v;
}

Result<float> Scalar(const WeightSource& src, const std::string& name) {
  GEMMAD_ASSIGN_OR_RETURN(TensorView v, Bind(src, name, {1}));
  if (v.dtype == DType::kF32) return *v.As<const float>();
  const uint32_t bits = static_cast<uint32_t>(*v.As<const uint16_t>()) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

TensorView I32(const int32_t* p, int64_t n) {
  TensorView v;
  v.data = const_cast<int32_t*>(p);
  v.dtype = DType::kI32;
  v.shape = tensor::Shape{n};
  return v;
}

}  // namespace

Result<std::unique_ptr<Assistant>> Assistant::Load(std::shared_ptr<const WeightSource> source, const Config& target) {
  GEMMAD_ASSIGN_OR_RETURN(AssistantConfig cfg, ParseAssistantConfig(source->config_json(), source->config_label()));
  GEMMAD_RETURN_IF_ERROR(CheckAssistantFitsTarget(cfg, target));
  std::unique_ptr<Assistant> a(new Assistant());
  a->config_ = cfg;
  const Config& c = cfg.text;
  const WeightSource& s = *source;
  const int64_t Hd = c.hidden_size, Hb = cfg.backbone_hidden_size, V = c.vocab_size, nH = c.num_attention_heads;
  GEMMAD_ASSIGN_OR_RETURN(a->embed_, Bind(s, "model.embed_tokens.weight", {V, Hd}));
  GEMMAD_ASSIGN_OR_RETURN(a->final_norm_, Bind(s, "model.norm.weight", {Hd}));
  GEMMAD_ASSIGN_OR_RETURN(a->pre_projection_, Bind(s, "pre_projection.weight", {Hd, 2 * Hb}));
  GEMMAD_ASSIGN_OR_RETURN(a->post_projection_, Bind(s, "post_projection.weight", {Hb, Hd}));
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    const int64_t d = c.layer_head_dim(l), I = c.layer_intermediate_size(l);
    Layer L;
    GEMMAD_ASSIGN_OR_RETURN(L.input_norm, Bind(s, p + "input_layernorm.weight", {Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.post_attention_norm, Bind(s, p + "post_attention_layernorm.weight", {Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.pre_feedforward_norm, Bind(s, p + "pre_feedforward_layernorm.weight", {Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.post_feedforward_norm, Bind(s, p + "post_feedforward_layernorm.weight", {Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.q_proj, Bind(s, p + "self_attn.q_proj.weight", {nH * d, Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.q_norm, Bind(s, p + "self_attn.q_norm.weight", {d}));
    GEMMAD_ASSIGN_OR_RETURN(L.o_proj, Bind(s, p + "self_attn.o_proj.weight", {Hd, nH * d}));
    GEMMAD_ASSIGN_OR_RETURN(L.gate_proj, Bind(s, p + "mlp.gate_proj.weight", {I, Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.up_proj, Bind(s, p + "mlp.up_proj.weight", {I, Hd}));
    GEMMAD_ASSIGN_OR_RETURN(L.down_proj, Bind(s, p + "mlp.down_proj.weight", {Hd, I}));
    GEMMAD_ASSIGN_OR_RETURN(L.layer_scalar, Scalar(s, p + "layer_scalar"));
    a->layers_.push_back(L);
  }
  if (cfg.use_ordered_embeddings) {
    GEMMAD_ASSIGN_OR_RETURN(a->centroids_, Bind(s, "masked_embedding.centroids.weight", {cfg.num_centroids, Hd}));
    GEMMAD_ASSIGN_OR_RETURN(TensorView order, s.View("masked_embedding.token_ordering"));
    if (order.dtype != DType::kI64 || order.shape.rank != 1 || order.shape.dims[0] != V) {
      return InvalidArgumentError(fmt::format("{}: masked_embedding.token_ordering must be I64 [{}]", s.label(), V));
    }
    std::vector<bool> seen(static_cast<size_t>(V), false);
    for (int64_t i = 0; i < V; ++i) {
      const int64_t t = order.As<const int64_t>()[i];
      if (t < 0 || t >= V || seen[static_cast<size_t>(t)]) {
        return InvalidArgumentError(
            fmt::format("{}: masked_embedding.token_ordering is not a permutation of the vocabulary", s.label()));
      }
      seen[static_cast<size_t>(t)] = true;
      a->token_ordering_.push_back(static_cast<int32_t>(t));
    }
  }
  GEMMAD_ASSIGN_OR_RETURN(a->rope_sliding_, RopeInvFreq(c.rope_sliding, c.head_dim));
  GEMMAD_ASSIGN_OR_RETURN(a->rope_full_, RopeInvFreq(c.rope_full, c.global_head_dim));
  a->source_ = std::move(source);
  return a;
}

void Assistant::Logits(const kernels::ExecContext& exec, const TensorView& h, DraftStepResult* out) const {
  const int64_t V = config_.text.vocab_size, Hd = config_.text.hidden_size;
  out->logits.assign(static_cast<size_t>(V), 0.0f);
  if (!config_.use_ordered_embeddings) {  // the tied LM head over the whole vocabulary; no soft-cap
    kernels::Linear(exec, h, embed_, F32(out->logits.data(), {1, V}));
  } else {  // §12.4: the top clusters' tokens only; the rest min(candidates) - 1 (transformers)
    const int64_t C = config_.num_centroids, per = V / C, K = config_.centroid_top_k;
    std::vector<float> cl(static_cast<size_t>(C));
    kernels::Linear(exec, h, centroids_, F32(cl.data(), {1, C}));
    std::vector<int32_t> order(static_cast<size_t>(C));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return cl[x] > cl[y]; });
    std::vector<int32_t> ids;
    for (int64_t k = 0; k < K; ++k) {
      const int32_t* cluster = token_ordering_.data() + static_cast<int64_t>(order[static_cast<size_t>(k)]) * per;
      ids.insert(ids.end(), cluster, cluster + per);
    }
    const int64_t n = static_cast<int64_t>(ids.size());
    std::vector<float> rows(static_cast<size_t>(n * Hd)), l(static_cast<size_t>(n));
    kernels::EmbeddingGather(exec, embed_, I32(ids.data(), n), 1.0f, F32(rows.data(), {n, Hd}));
    kernels::Linear(exec, h, F32(rows.data(), {n, Hd}), F32(l.data(), {1, n}));
    const float fill = *std::min_element(l.begin(), l.end()) - 1.0f;
    std::fill(out->logits.begin(), out->logits.end(), fill);
    for (int64_t i = 0; i < n; ++i) out->logits[static_cast<size_t>(ids[static_cast<size_t>(i)])] = l[static_cast<size_t>(i)];
  }
  out->token = static_cast<int32_t>(std::max_element(out->logits.begin(), out->logits.end()) - out->logits.begin());
}

Status Assistant::DraftStep(const kernels::ExecContext& exec, std::span<const float> token_embedding,
                            std::span<const float> backbone, int64_t position, const DonorKv& sliding,
                            const DonorKv& full, DraftStepResult* out) const {
  const Config& c = config_.text;
  const int64_t Hd = c.hidden_size, Hb = config_.backbone_hidden_size, nH = c.num_attention_heads;
  if (static_cast<int64_t>(token_embedding.size()) != Hb || static_cast<int64_t>(backbone.size()) != Hb) {
    return InvalidArgumentError(fmt::format("DraftStep: embedding {} and backbone {} floats, expected {}",
                                            token_embedding.size(), backbone.size(), Hb));
  }
  const float eps = static_cast<float>(c.rms_norm_eps);
  // x = pre_projection(concat(e, b)): the embedding first.
  std::vector<float> in(static_cast<size_t>(2 * Hb));
  std::copy(token_embedding.begin(), token_embedding.end(), in.begin());
  std::copy(backbone.begin(), backbone.end(), in.begin() + Hb);
  std::vector<float> x(static_cast<size_t>(Hd)), a(static_cast<size_t>(Hd)), o(static_cast<size_t>(Hd));
  const TensorView xv = F32(x.data(), {1, Hd}), av = F32(a.data(), {1, Hd}), ov = F32(o.data(), {1, Hd});
  kernels::Linear(exec, F32(in.data(), {1, 2 * Hb}), pre_projection_, xv);
  const int32_t pos = static_cast<int32_t>(position);
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const Layer& L = layers_[static_cast<size_t>(l)];
    const bool is_sliding = c.is_sliding(l);
    const DonorKv& kv = is_sliding ? sliding : full;
    const int64_t d = c.layer_head_dim(l), I = c.layer_intermediate_size(l);
    // Attention: Q only (q_norm, RoPE at `position`), the donor's keys, scale 1.0.
    kernels::RmsNorm(exec, xv, L.input_norm, av, eps);
    std::vector<float> q(static_cast<size_t>(nH * d)), attn(static_cast<size_t>(nH * d));
    kernels::Linear(exec, av, L.q_proj, F32(q.data(), {1, nH * d}));
    kernels::RmsNorm(exec, F32(q.data(), {nH, d}), L.q_norm, F32(q.data(), {nH, d}), eps);
    const std::vector<float>& inv = is_sliding ? rope_sliding_ : rope_full_;
    kernels::RopeNeox(exec, F32(q.data(), {1, nH, d}), I32(&pos, 1),
                      F32(const_cast<float*>(inv.data()), {static_cast<int64_t>(inv.size())}));
    kernels::AttentionSequence seq;
    seq.token_begin = 0;
    seq.num_tokens = 1;
    seq.first_kv_index = kv.last_key;
    seq.block_table = kv.block_table;
    seq.block_table_size = kv.block_table_size;
    kernels::PagedAttention(exec, F32(q.data(), {1, nH, d}), kv.k_cache, kv.v_cache, std::span(&seq, 1), kv.window,
                            static_cast<float>(c.attention_scale), F32(attn.data(), {1, nH, d}), kv.scales);
    kernels::Linear(exec, F32(attn.data(), {1, nH * d}), L.o_proj, ov);
    kernels::RmsNorm(exec, ov, L.post_attention_norm, ov, eps);
    kernels::Add(exec, xv, ov, xv);
    // MLP (GeGLU).
    kernels::RmsNorm(exec, xv, L.pre_feedforward_norm, av, eps);
    std::vector<float> g(static_cast<size_t>(I)), u(static_cast<size_t>(I));
    kernels::Linear(exec, av, L.gate_proj, F32(g.data(), {1, I}));
    kernels::Linear(exec, av, L.up_proj, F32(u.data(), {1, I}));
    kernels::GeluTanhMul(exec, F32(g.data(), {1, I}), F32(u.data(), {1, I}), F32(g.data(), {1, I}));
    kernels::Linear(exec, F32(g.data(), {1, I}), L.down_proj, ov);
    kernels::RmsNorm(exec, ov, L.post_feedforward_norm, ov, eps);
    kernels::Add(exec, xv, ov, xv);
    kernels::Scale(exec, xv, L.layer_scalar);
  }
  // Final norm first, then the backbone projection and the head (§12.3).
  out->hidden.assign(static_cast<size_t>(Hd), 0.0f);
  const TensorView hv = F32(out->hidden.data(), {1, Hd});
  kernels::RmsNorm(exec, xv, final_norm_, hv, eps);
  out->backbone.assign(static_cast<size_t>(Hb), 0.0f);
  kernels::Linear(exec, hv, post_projection_, F32(out->backbone.data(), {1, Hb}));
  Logits(exec, hv, out);
  return OkStatus();
}

}  // namespace gemmad::model::gemma4
