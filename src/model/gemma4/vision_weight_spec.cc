// VisionWeightSpec: tensor names and shapes per multimodal.md §3.1.
#include "model/gemma4/vision_weight_spec.h"

#include <fmt/format.h>

#include <string>

namespace gemmad::model::gemma4 {

std::vector<WeightSpec> VisionWeightSpec(const VisionConfig& c, int64_t text_hidden) {
  std::vector<WeightSpec> out;
  const std::string t(kVisionTowerPrefix);
  const int64_t dv = c.hidden_size, q_dim = c.num_attention_heads * c.head_dim;
  const int64_t kv_dim = c.num_key_value_heads * c.head_dim, inter = c.intermediate_size;
  AddTowerTensor(&out, t + "patch_embedder.input_proj.weight", {dv, 3 * c.patch_size * c.patch_size});
  AddTowerTensor(&out, t + "patch_embedder.position_embedding_table", {2, c.position_embedding_size, dv});
  if (c.standardize) {
    AddTowerTensor(&out, t + "std_bias", {dv});
    AddTowerTensor(&out, t + "std_scale", {dv});
  }
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("{}encoder.layers.{}.", t, l);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"}) {
      AddTowerTensor(&out, p + n + ".weight", {dv});
    }
    AddClippableLinear(&out, c.use_clipped_linears, p + "self_attn.q_proj", q_dim, dv);
    AddClippableLinear(&out, c.use_clipped_linears, p + "self_attn.k_proj", kv_dim, dv);
    AddClippableLinear(&out, c.use_clipped_linears, p + "self_attn.v_proj", kv_dim, dv);
    AddClippableLinear(&out, c.use_clipped_linears, p + "self_attn.o_proj", dv, q_dim);
    AddTowerTensor(&out, p + "self_attn.q_norm.weight", {c.head_dim});
    AddTowerTensor(&out, p + "self_attn.k_norm.weight", {c.head_dim});
    AddClippableLinear(&out, c.use_clipped_linears, p + "mlp.gate_proj", inter, dv);
    AddClippableLinear(&out, c.use_clipped_linears, p + "mlp.up_proj", inter, dv);
    AddClippableLinear(&out, c.use_clipped_linears, p + "mlp.down_proj", dv, inter);
  }
  AddTowerTensor(&out, std::string(kVisionProjection), {text_hidden, dv});
  return out;
}

int64_t CountVisionParams(const VisionConfig& c, int64_t text_hidden) {
  int64_t n = 0;
  for (const WeightSpec& w : VisionWeightSpec(c, text_hidden)) n += w.num_elements();
  return n;
}

}  // namespace gemmad::model::gemma4
