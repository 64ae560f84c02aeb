// MapGgufTensorName (see gguf_names.h).
#include "model/gguf_names.h"

#include <array>
#include <cstdlib>
#include <utility>

namespace gemmad::model {
namespace {

using Pair = std::pair<std::string_view, std::string_view>;

// Global tensors (no layer index).
constexpr std::array<Pair, 5> kGlobals = {{
    {"token_embd.weight", "model.embed_tokens.weight"},
    {"output_norm.weight", "model.norm.weight"},
    {"output.weight", "lm_head.weight"},
    {"per_layer_token_embd.weight", "model.embed_tokens_per_layer.weight"},
    {"per_layer_model_proj.weight", "model.per_layer_model_projection.weight"},
}};

// Per-layer suffixes after "blk.N." -> after "model.layers.N.".
constexpr std::array<Pair, 27> kLayer = {{
    {"attn_norm.weight", "input_layernorm.weight"},
    {"attn_q.weight", "self_attn.q_proj.weight"},
    {"attn_k.weight", "self_attn.k_proj.weight"},
    {"attn_v.weight", "self_attn.v_proj.weight"},
    {"attn_output.weight", "self_attn.o_proj.weight"},
    {"attn_q_norm.weight", "self_attn.q_norm.weight"},
    {"attn_k_norm.weight", "self_attn.k_norm.weight"},
    {"post_attention_norm.weight", "post_attention_layernorm.weight"},
    {"ffn_norm.weight", "pre_feedforward_layernorm.weight"},
    {"ffn_gate.weight", "mlp.gate_proj.weight"},
    {"ffn_up.weight", "mlp.up_proj.weight"},
    {"ffn_down.weight", "mlp.down_proj.weight"},
    {"post_ffw_norm.weight", "post_feedforward_layernorm.weight"},
    // Gemma 4 only from here on.
    {"layer_output_scale.weight", "layer_scalar"},
    {"inp_gate.weight", "per_layer_input_gate.weight"},
    {"proj.weight", "per_layer_projection.weight"},
    {"post_norm.weight", "post_per_layer_input_norm.weight"},
    {"ffn_gate_inp.weight", "router.proj.weight"},
    {"ffn_gate_inp.scale", "router.scale"},
    {"pre_ffw_norm_2.weight", "pre_feedforward_layernorm_2.weight"},
    {"post_ffw_norm_1.weight", "post_feedforward_layernorm_1.weight"},
    {"post_ffw_norm_2.weight", "post_feedforward_layernorm_2.weight"},
    {"ffn_gate_up_exps.weight", "experts.gate_up_proj"},
    {"ffn_down_exps.weight", "experts.down_proj"},
    {"ffn_down_exps.scale", "router.per_expert_scale"},
    // The split expert form; the source concatenates the two into experts.gate_up_proj.
    {"ffn_gate_exps.weight", "experts.gate_proj"},
    {"ffn_up_exps.weight", "experts.up_proj"},
}};
constexpr size_t kNumGemma3LayerSuffixes = 13;

bool IsNormName(std::string_view hf) {
  return hf.ends_with("norm.weight") || hf.ends_with("layernorm.weight");
}

}  // namespace

std::optional<GgufTensorMapping> MapGgufTensorName(GgufArch arch, std::string_view name) {
  const bool gemma3 = arch == GgufArch::kGemma3;
  for (size_t i = 0; i < kGlobals.size(); ++i) {
    if (name != kGlobals[i].first) continue;
    if (gemma3 && i >= 3) return std::nullopt;
    GgufTensorMapping m{std::string(kGlobals[i].second), false};
    m.subtract_one = gemma3 && IsNormName(m.hf_name);
    return m;
  }
  if (!gemma3 && name == "per_layer_proj_norm.weight") {
    return GgufTensorMapping{"model.per_layer_projection_norm.weight", false};
  }
  constexpr std::string_view kBlk = "blk.";
  if (!name.starts_with(kBlk)) return std::nullopt;
  const size_t dot = name.find('.', kBlk.size());
  if (dot == std::string_view::npos || dot == kBlk.size() || dot - kBlk.size() > 5) return std::nullopt;
  const std::string_view index = name.substr(kBlk.size(), dot - kBlk.size());
  if (index.size() > 1 && index[0] == '0') return std::nullopt;
  for (char ch : index) {
    if (ch < '0' || ch > '9') return std::nullopt;
  }
  const std::string_view suffix = name.substr(dot + 1);
  const size_t limit = gemma3 ? kNumGemma3LayerSuffixes : kLayer.size();
  for (size_t i = 0; i < limit; ++i) {
    if (suffix != kLayer[i].first) continue;
    GgufTensorMapping m{"model.layers." + std::string(index) + "." + std::string(kLayer[i].second), false};
    m.subtract_one = gemma3 && IsNormName(m.hf_name);
    return m;
  }
  return std::nullopt;
}

}  // namespace gemmad::model
