// TextWeightSpec: tensor names and shapes per text-model.md §9, matching what transformers saves.
#include "model/gemma4/weight_spec.h"

#include <fmt/format.h>

namespace gemmad::model::gemma4 {
namespace {

void Add(std::vector<WeightSpec>* out, std::string name, std::vector<int64_t> shape, bool used = true) {
  out->push_back({std::move(name), std::move(shape), used, false});
}

void AddAttention(const Config& c, int64_t l, const std::string& p, std::vector<WeightSpec>* out) {
  int64_t h = c.hidden_size, d = c.layer_head_dim(l), nkv = c.layer_num_kv_heads(l), nh = c.num_attention_heads;
  bool kv_used = !c.is_kv_shared(l);
  bool has_v = c.is_sliding(l) || !c.attention_k_eq_v;
  Add(out, p + "self_attn.q_proj.weight", {nh * d, h});
  Add(out, p + "self_attn.q_norm.weight", {d});
  Add(out, p + "self_attn.k_proj.weight", {nkv * d, h}, kv_used);
  if (has_v) Add(out, p + "self_attn.v_proj.weight", {nkv * d, h}, kv_used);
  Add(out, p + "self_attn.k_norm.weight", {d}, kv_used);
  Add(out, p + "self_attn.o_proj.weight", {h, nh * d});
}

void AddLayer(const Config& c, int64_t l, std::vector<WeightSpec>* out) {
  const std::string p = fmt::format("layers.{}.", l);
  int64_t h = c.hidden_size, i = c.layer_intermediate_size(l);
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                        "post_feedforward_layernorm"}) {
    Add(out, p + n + ".weight", {h});
  }
  if (c.has_layer_scalar) Add(out, p + "layer_scalar", {1});
  AddAttention(c, l, p, out);
  Add(out, p + "mlp.gate_proj.weight", {i, h});
  Add(out, p + "mlp.up_proj.weight", {i, h});
  Add(out, p + "mlp.down_proj.weight", {h, i});
  if (c.hidden_size_per_layer_input > 0) {
    int64_t ple = c.hidden_size_per_layer_input;
    Add(out, p + "per_layer_input_gate.weight", {ple, h});
    Add(out, p + "per_layer_projection.weight", {h, ple});
    Add(out, p + "post_per_layer_input_norm.weight", {h});
  }
  if (c.enable_moe_block) {
    int64_t e = c.num_experts, ie = c.moe_intermediate_size;
    Add(out, p + "router.proj.weight", {e, h});
    Add(out, p + "router.scale", {h});
    Add(out, p + "router.per_expert_scale", {e});
    Add(out, p + "experts.gate_up_proj", {e, 2 * ie, h});
    Add(out, p + "experts.down_proj", {e, h, ie});
    for (const char* n : {"pre_feedforward_layernorm_2", "post_feedforward_layernorm_1", "post_feedforward_layernorm_2"}) {
      Add(out, p + n + ".weight", {h});
    }
  }
}

}  // namespace

int64_t WeightSpec::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<WeightSpec> TextWeightSpec(const Config& c) {
  std::vector<WeightSpec> out;
  int64_t h = c.hidden_size;
  Add(&out, "embed_tokens.weight", {c.vocab_size, h});
  Add(&out, "norm.weight", {h});
  if (c.hidden_size_per_layer_input > 0) {
    int64_t lp = c.num_hidden_layers * c.hidden_size_per_layer_input;
    Add(&out, "embed_tokens_per_layer.weight", {c.vocab_size_per_layer_input, lp});
    Add(&out, "per_layer_model_projection.weight", {lp, h});
    Add(&out, "per_layer_projection_norm.weight", {c.hidden_size_per_layer_input});
  }
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) AddLayer(c, l, &out);
  out.push_back({"lm_head.weight", {c.vocab_size, h}, !c.tie_word_embeddings, true});
  return out;
}

bool IsNonTextTensor(std::string_view n) {
  for (std::string_view p : {"model.vision_tower.", "model.audio_tower.", "model.embed_vision.", "model.embed_audio."}) {
    if (n.substr(0, p.size()) == p) return true;
  }
  return false;
}

ParamCounts CountParams(const Config& c, bool include_unused) {
  ParamCounts pc;
  for (const WeightSpec& w : TextWeightSpec(c)) {
    if (w.used) {
      pc.used += w.num_elements();
    } else if (include_unused && !w.top_level) {
      pc.unused += w.num_elements();
    }
    if (w.name == "embed_tokens.weight") pc.embedding = w.num_elements();
    if (w.name == "embed_tokens_per_layer.weight") pc.per_layer_embedding = w.num_elements();
  }
  return pc;
}

}  // namespace gemmad::model::gemma4
