// Weight binding: name construction per text-model.md §9, shape/dtype checks, f16 widening, and
// Gemma 3's norm weights turned into the multipliers 1 + w.
#include "model/gemma4/weights.h"

#include <string>

#include "tensor/half.h"

namespace gemmad::model::gemma4 {
namespace {

class Binder {
 public:
  Binder(const TensorLookup& lookup, std::string prefix, Weights* w)
      : lookup_(lookup), prefix_(std::move(prefix)), w_(w) {}

  // Binds `name` (without prefix) and checks its shape.
  Status Bind(const std::string& name, tensor::Shape want, TensorView* out) {
    const std::string full = prefix_ + name;
    auto r = lookup_(full);
    if (!r.ok()) return r.status();
    TensorView v = *r;
    if (!(v.shape == want)) {
      return InvalidArgumentError(full + ": shape " + v.shape.ToString() + ", expected " + want.ToString());
    }
    if (v.dtype == tensor::DType::kF16) {
      auto buf = std::make_unique<std::vector<float>>(static_cast<size_t>(v.NumElements()));
      const auto* h = v.As<const uint16_t>();
      for (int64_t i = 0; i < v.NumElements(); ++i) (*buf)[i] = tensor::F16ToFloat(h[i]);
      v.data = buf->data();
      v.dtype = tensor::DType::kF32;
      w_->owned.push_back(std::move(buf));
    } else if (BoundAsStored(v.dtype, want.rank)) {
      // Read as stored by the kernels (Linear, EmbeddingGather, MoeExperts).
    } else if (v.dtype != tensor::DType::kF32 && v.dtype != tensor::DType::kBF16) {
      return InvalidArgumentError(full + ": dtype " + std::string(tensor::DTypeName(v.dtype)) +
                                  " is not supported (expected BF16, F16 or F32)");
    }
    *out = v;
    return OkStatus();
  }

  // Binds an RMSNorm weight. With `plus_one` (Gemma3RMSNorm: x̂·(1 + w), 1 + w computed in fp32)
  // the view is an owned fp32 copy holding 1 + w, so the kernels' x̂·w computes the same.
  Status BindNorm(const std::string& name, tensor::Shape want, bool plus_one, TensorView* out) {
    GEMMAD_RETURN_IF_ERROR(Bind(name, want, out));
    if (!plus_one) return OkStatus();
    auto buf = std::make_unique<std::vector<float>>(static_cast<size_t>(out->NumElements()));
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      const float w = out->dtype == tensor::DType::kBF16 ? tensor::Bf16ToFloat(out->As<const uint16_t>()[i])
                                                         : out->As<const float>()[i];
      (*buf)[i] = 1.0f + w;
    }
    out->data = buf->data();
    out->dtype = tensor::DType::kF32;
    w_->owned.push_back(std::move(buf));
    return OkStatus();
  }

 private:
  const TensorLookup& lookup_;
  std::string prefix_;
  Weights* w_;
};

Status BindLayer(const Config& c, int64_t l, Binder& b, LayerWeights& lw) {
  const std::string p = "layers." + std::to_string(l) + ".";
  const int64_t H = c.hidden_size, d = c.layer_head_dim(l), nkv = c.layer_num_kv_heads(l);
  const int64_t nH = c.num_attention_heads, I = c.layer_intermediate_size(l);
  const bool plus_one = c.norm_weight_plus_one;
  GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "input_layernorm.weight", {H}, plus_one, &lw.input_norm));
  GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "post_attention_layernorm.weight", {H}, plus_one, &lw.post_attention_norm));
  GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "pre_feedforward_layernorm.weight", {H}, plus_one, &lw.pre_feedforward_norm));
  GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "post_feedforward_layernorm.weight", {H}, plus_one, &lw.post_feedforward_norm));
  if (c.has_layer_scalar) {
    TensorView scalar;
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "layer_scalar", {1}, &scalar));
    lw.layer_scalar = scalar.dtype == tensor::DType::kBF16 ? tensor::Bf16ToFloat(*scalar.As<const uint16_t>())
                                                           : *scalar.As<const float>();
  }
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "self_attn.q_proj.weight", {nH * d, H}, &lw.q_proj));
  GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "self_attn.q_norm.weight", {d}, plus_one, &lw.q_norm));
  if (!c.is_kv_shared(l)) {
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "self_attn.k_proj.weight", {nkv * d, H}, &lw.k_proj));
    GEMMAD_RETURN_IF_ERROR(b.BindNorm(p + "self_attn.k_norm.weight", {d}, plus_one, &lw.k_norm));
    if (c.is_sliding(l) || !c.attention_k_eq_v) {
      GEMMAD_RETURN_IF_ERROR(b.Bind(p + "self_attn.v_proj.weight", {nkv * d, H}, &lw.v_proj));
    }
  }
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "self_attn.o_proj.weight", {H, nH * d}, &lw.o_proj));
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "mlp.gate_proj.weight", {I, H}, &lw.gate_proj));
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "mlp.up_proj.weight", {I, H}, &lw.up_proj));
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "mlp.down_proj.weight", {H, I}, &lw.down_proj));
  if (const int64_t P = c.hidden_size_per_layer_input; P > 0) {
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "per_layer_input_gate.weight", {P, H}, &lw.ple_gate));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "per_layer_projection.weight", {H, P}, &lw.ple_projection));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "post_per_layer_input_norm.weight", {H}, &lw.ple_post_norm));
  }
  if (c.enable_moe_block) {
    const int64_t E = c.num_experts, Ie = c.moe_intermediate_size;
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "router.proj.weight", {E, H}, &lw.router_proj));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "router.scale", {H}, &lw.router_scale));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "router.per_expert_scale", {E}, &lw.per_expert_scale));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "experts.gate_up_proj", {E, 2 * Ie, H}, &lw.experts_gate_up));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "experts.down_proj", {E, H, Ie}, &lw.experts_down));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "pre_feedforward_layernorm_2.weight", {H}, &lw.pre_feedforward_norm_2));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "post_feedforward_layernorm_1.weight", {H}, &lw.post_feedforward_norm_1));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + "post_feedforward_layernorm_2.weight", {H}, &lw.post_feedforward_norm_2));
  }
  return OkStatus();
}

}  // namespace

Result<Weights> BindWeights(const Config& c, const TensorLookup& lookup, const std::string& prefix) {
  Weights w;
  Binder b(lookup, prefix, &w);
  const int64_t H = c.hidden_size, L = c.num_hidden_layers, P = c.hidden_size_per_layer_input;
  GEMMAD_RETURN_IF_ERROR(b.Bind("embed_tokens.weight", {c.vocab_size, H}, &w.embed));
  GEMMAD_RETURN_IF_ERROR(b.BindNorm("norm.weight", {H}, c.norm_weight_plus_one, &w.final_norm));
  if (P > 0) {
    GEMMAD_RETURN_IF_ERROR(b.Bind("embed_tokens_per_layer.weight", {c.vocab_size_per_layer_input, L * P}, &w.ple_table));
    GEMMAD_RETURN_IF_ERROR(b.Bind("per_layer_model_projection.weight", {L * P, H}, &w.ple_model_projection));
    GEMMAD_RETURN_IF_ERROR(b.Bind("per_layer_projection_norm.weight", {P}, &w.ple_projection_norm));
  }
  w.layers.resize(static_cast<size_t>(L));
  for (int64_t l = 0; l < L; ++l) GEMMAD_RETURN_IF_ERROR(BindLayer(c, l, b, w.layers[l]));
  w.lm_head = w.embed;
  // A block-quantized embedding (GGUF, or a compressed-tensors one read in place) says nothing of the
  // model's dtype: its final norm's does (bf16 in a bf16 checkpoint, f32 in a GGUF file).
  const tensor::DType model_dtype = tensor::IsBlockQuantized(w.embed.dtype) ? w.final_norm.dtype : w.embed.dtype;
  w.compute_dtype = model_dtype == tensor::DType::kBF16 ? tensor::DType::kBF16 : tensor::DType::kF32;
  return w;
}

std::vector<TensorView*> StreamedMatrices(Weights* w) {
  std::vector<TensorView*> out;
  const auto add = [&out](TensorView* v) {
    if (v->data != nullptr) out.push_back(v);
  };
  add(&w->ple_model_projection);
  for (LayerWeights& l : w->layers) {
    for (TensorView* v : {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj,
                          &l.ple_gate, &l.ple_projection, &l.experts_gate_up, &l.experts_down}) {
      add(v);
    }
  }
  add(&w->lm_head);
  return out;
}

namespace {

// Every non-empty view of `w`, const or not (W = Weights or const Weights).
template <typename V, typename W>
std::vector<V*> ViewsOf(W& w) {
  std::vector<V*> out;
  const auto add = [&out](V& v) {
    if (v.data != nullptr) out.push_back(&v);
  };
  for (V* v : {&w.embed, &w.lm_head, &w.final_norm, &w.ple_table, &w.ple_model_projection, &w.ple_projection_norm}) {
    add(*v);
  }
  for (auto& l : w.layers) {
    for (V* v :
         {&l.input_norm, &l.post_attention_norm, &l.pre_feedforward_norm, &l.post_feedforward_norm, &l.q_proj,
          &l.q_norm, &l.k_proj, &l.v_proj, &l.k_norm, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj,
          &l.ple_gate, &l.ple_projection, &l.ple_post_norm, &l.router_proj, &l.router_scale, &l.per_expert_scale,
          &l.experts_gate_up, &l.experts_down, &l.pre_feedforward_norm_2, &l.post_feedforward_norm_1,
          &l.post_feedforward_norm_2}) {
      add(*v);
    }
  }
  return out;
}

}  // namespace

std::vector<const TensorView*> AllViews(const Weights& w) { return ViewsOf<const TensorView>(w); }

std::vector<TensorView*> AllViews(Weights* w) { return ViewsOf<TensorView>(*w); }

}  // namespace gemmad::model::gemma4
