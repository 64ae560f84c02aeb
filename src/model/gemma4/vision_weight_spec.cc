// VisionWeightSpec: tensor names and shapes per multimodal.md §3.1.
#include "model/gemma4/vision_weight_spec.h"

#include <fmt/format.h>

#include <string>

namespace gemmad::model::gemma4 {
namespace {

void Add(std::vector<WeightSpec>* out, std::string name, std::vector<int64_t> shape) {
  out->push_back({std::move(name), std::move(shape), /*used=*/true, /*top_level=*/true});
}

void AddClippable(const VisionConfig& c, const std::string& name, int64_t out_features, int64_t in_features,
                  std::vector<WeightSpec>* out) {
  if (c.use_clipped_linears) {
    for (const char* b : {"input_min", "input_max", "output_min", "output_max"}) Add(out, name + "." + b, {});
  }
  Add(out, name + ".linear.weight", {out_features, in_features});
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::vector<WeightSpec> VisionWeightSpec(const VisionConfig& c, int64_t text_hidden) {
  std::vector<WeightSpec> out;
  const std::string t(kVisionTowerPrefix);
  const int64_t dv = c.hidden_size, q_dim = c.num_attention_heads * c.head_dim;
  const int64_t kv_dim = c.num_key_value_heads * c.head_dim, inter = c.intermediate_size;
  Add(&out, t + "patch_embedder.input_proj.weight", {dv, 3 * c.patch_size * c.patch_size});
  Add(&out, t + "patch_embedder.position_embedding_table", {2, c.position_embedding_size, dv});
  if (c.standardize) {
    Add(&out, t + "std_bias", {dv});
    Add(&out, t + "std_scale", {dv});
  }
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("{}encoder.layers.{}.", t, l);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"}) {
      Add(&out, p + n + ".weight", {dv});
    }
    AddClippable(c, p + "self_attn.q_proj", q_dim, dv, &out);
    AddClippable(c, p + "self_attn.k_proj", kv_dim, dv, &out);
    AddClippable(c, p + "self_attn.v_proj", kv_dim, dv, &out);
    AddClippable(c, p + "self_attn.o_proj", dv, q_dim, &out);
    Add(&out, p + "self_attn.q_norm.weight", {c.head_dim});
    Add(&out, p + "self_attn.k_norm.weight", {c.head_dim});
    AddClippable(c, p + "mlp.gate_proj", inter, dv, &out);
    AddClippable(c, p + "mlp.up_proj", inter, dv, &out);
    AddClippable(c, p + "mlp.down_proj", dv, inter, &out);
  }
  Add(&out, std::string(kVisionProjection), {text_hidden, dv});
  return out;
}

bool IsClipBound(std::string_view name) {
  for (std::string_view s : {".input_min", ".input_max", ".output_min", ".output_max"}) {
    if (EndsWith(name, s)) return true;
  }
  return false;
}

int64_t CountVisionParams(const VisionConfig& c, int64_t text_hidden) {
  int64_t n = 0;
  for (const WeightSpec& w : VisionWeightSpec(c, text_hidden)) n += w.num_elements();
  return n;
}

}  // namespace gemmad::model::gemma4
