// config.json / generation_config.json writers (see config_writer.h).
#include "model/gemma4/config_writer.h"

#include <nlohmann/json.hpp>

#include "base/check.h"

namespace gemmad::model::gemma4 {
namespace {

using nlohmann::json;

json Rope(const RopeParams& r) {
  json j = {{"rope_type", r.rope_type}, {"rope_theta", r.rope_theta}};
  if (r.rope_type == "proportional") {
    j["partial_rotary_factor"] = r.partial_rotary_factor;
    if (r.factor != 1.0) j["factor"] = r.factor;
  } else if (r.rope_type == "linear") {
    j["factor"] = r.factor;
  }
  return j;
}

json EosJson(const std::vector<int64_t>& ids) {
  if (ids.size() == 1) return ids[0];
  return ids;
}

json LayerTypes(const Config& c) {
  json types = json::array();
  for (LayerType lt : c.layer_types) types.push_back(lt == LayerType::kSliding ? "sliding_attention" : "full_attention");
  return types;
}

json TextFields(const Config& c) {
  json t;
  t["model_type"] = "gemma4_text";
  t["attention_bias"] = false;
  t["attention_dropout"] = 0.0;
  t["attention_k_eq_v"] = c.attention_k_eq_v;
  t["bos_token_id"] = c.bos_token_id;
  t["pad_token_id"] = c.pad_token_id;
  t["eos_token_id"] = EosJson(c.eos_token_ids);
  t["enable_moe_block"] = c.enable_moe_block;
  t["num_experts"] = c.enable_moe_block ? json(c.num_experts) : json(nullptr);
  t["top_k_experts"] = c.enable_moe_block ? json(c.top_k_experts) : json(nullptr);
  t["moe_intermediate_size"] = c.enable_moe_block ? json(c.moe_intermediate_size) : json(nullptr);
  t["final_logit_softcapping"] = c.final_logit_softcapping > 0 ? json(c.final_logit_softcapping) : json(nullptr);
  t["head_dim"] = c.head_dim;
  t["hidden_activation"] = c.hidden_activation;
  t["hidden_size"] = c.hidden_size;
  t["hidden_size_per_layer_input"] = c.hidden_size_per_layer_input;
  t["vocab_size_per_layer_input"] = c.vocab_size_per_layer_input;
  t["initializer_range"] = 0.02;
  t["intermediate_size"] = c.intermediate_size;
  t["layer_types"] = LayerTypes(c);
  t["max_position_embeddings"] = c.max_position_embeddings;
  t["num_attention_heads"] = c.num_attention_heads;
  t["num_hidden_layers"] = c.num_hidden_layers;
  t["num_key_value_heads"] = c.num_key_value_heads;
  t["num_kv_shared_layers"] = c.num_kv_shared_layers;
  t["rms_norm_eps"] = c.rms_norm_eps;
  t["rope_parameters"] = {{"sliding_attention", Rope(c.rope_sliding)}, {"full_attention", Rope(c.rope_full)}};
  t["sliding_window"] = c.sliding_window;
  t["tie_word_embeddings"] = c.tie_word_embeddings;
  t["use_bidirectional_attention"] = c.use_bidirectional_attention.empty() ? json(nullptr)
                                                                            : json(c.use_bidirectional_attention);
  t["use_cache"] = true;
  t["use_double_wide_mlp"] = c.use_double_wide_mlp;
  t["vocab_size"] = c.vocab_size;
  return t;
}

// What transformers 5.25 saves for a Gemma3ForCausalLM (Gemma3TextConfig).
json Gemma3Fields(const Config& c, const std::string& dtype) {
  json t;
  t["architectures"] = {"Gemma3ForCausalLM"};
  t["model_type"] = "gemma3_text";
  t["attention_bias"] = false;
  t["attention_dropout"] = 0.0;
  t["attn_logit_softcapping"] = nullptr;
  t["bos_token_id"] = c.bos_token_id;
  t["pad_token_id"] = c.pad_token_id;
  t["eos_token_id"] = EosJson(c.eos_token_ids);
  t["dtype"] = dtype;
  t["final_logit_softcapping"] = c.final_logit_softcapping > 0 ? json(c.final_logit_softcapping) : json(nullptr);
  t["head_dim"] = c.head_dim;
  t["hidden_activation"] = c.hidden_activation;
  t["hidden_size"] = c.hidden_size;
  t["initializer_range"] = 0.02;
  t["intermediate_size"] = c.intermediate_size;
  t["layer_types"] = LayerTypes(c);
  t["max_position_embeddings"] = c.max_position_embeddings;
  t["num_attention_heads"] = c.num_attention_heads;
  t["num_hidden_layers"] = c.num_hidden_layers;
  t["num_key_value_heads"] = c.num_key_value_heads;
  t["query_pre_attn_scalar"] = c.query_pre_attn_scalar;
  t["rms_norm_eps"] = c.rms_norm_eps;
  t["rope_parameters"] = {{"sliding_attention", Rope(c.rope_sliding)}, {"full_attention", Rope(c.rope_full)}};
  t["sliding_window"] = c.sliding_window;
  t["tie_word_embeddings"] = c.tie_word_embeddings;
  t["use_bidirectional_attention"] = false;
  t["use_cache"] = true;
  t["vocab_size"] = c.vocab_size;
  return t;
}

json PerLayerConfig(const Config& c) {
  json plc = json::object();
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    if (c.is_sliding(l)) continue;
    json o = {{"head_dim", c.global_head_dim}};
    if (c.attention_k_eq_v) o["num_key_value_heads"] = c.num_global_key_value_heads;
    plc[std::to_string(l)] = o;
  }
  return plc;
}

json VisionFields(const VisionConfig& v, const std::string& dtype) {
  json j;
  j["model_type"] = "gemma4_vision";
  j["attention_bias"] = false;
  j["attention_dropout"] = 0.0;
  j["default_output_length"] = v.default_output_length;
  j["dtype"] = dtype;
  j["head_dim"] = v.head_dim;
  j["hidden_activation"] = v.hidden_activation;
  j["hidden_size"] = v.hidden_size;
  j["initializer_range"] = 0.02;
  j["intermediate_size"] = v.intermediate_size;
  j["max_position_embeddings"] = 131072;
  j["num_attention_heads"] = v.num_attention_heads;
  j["num_hidden_layers"] = v.num_hidden_layers;
  j["num_key_value_heads"] = v.num_key_value_heads;
  j["patch_size"] = v.patch_size;
  j["pooling_kernel_size"] = v.pooling_kernel_size;
  j["position_embedding_size"] = v.position_embedding_size;
  j["rms_norm_eps"] = v.rms_norm_eps;
  j["rope_parameters"] = {{"rope_type", v.rope_type}, {"rope_theta", v.rope_theta}};
  j["standardize"] = v.standardize;
  j["use_clipped_linears"] = v.use_clipped_linears;
  return j;
}

json AudioFields(const AudioConfig& a, const std::string& dtype) {
  json j;
  j["model_type"] = "gemma4_audio";
  j["attention_chunk_size"] = a.attention_chunk_size;
  j["attention_context_left"] = a.attention_context_left;
  j["attention_context_right"] = a.attention_context_right;
  j["attention_invalid_logits_value"] = a.attention_invalid_logits_value;
  j["attention_logit_cap"] = a.attention_logit_cap;
  j["conv_kernel_size"] = a.conv_kernel_size;
  j["dtype"] = dtype;
  j["gradient_clipping"] = a.gradient_clipping;
  j["hidden_act"] = a.hidden_act;
  j["hidden_size"] = a.hidden_size;
  j["initializer_range"] = 0.02;
  j["num_attention_heads"] = a.num_attention_heads;
  j["num_hidden_layers"] = a.num_hidden_layers;
  j["output_proj_dims"] = a.output_proj_dims;
  j["residual_weight"] = a.residual_weight;
  j["rms_norm_eps"] = a.rms_norm_eps;
  j["subsampling_conv_channels"] = {a.subsampling_conv_channels[0], a.subsampling_conv_channels[1]};
  j["use_clipped_linears"] = a.use_clipped_linears;
  return j;
}

}  // namespace

std::string ConfigToJson(const Config& c, ConfigLayout layout, const std::string& dtype) {
  if (c.family == Family::kGemma3) {
    GEMMAD_CHECK(layout == ConfigLayout::kTextOnly, "gemma3_text has no multimodal layout");
    return Gemma3Fields(c, dtype).dump(2) + "\n";
  }
  json t = TextFields(c);
  if (layout == ConfigLayout::kTextOnly) {
    t["architectures"] = {"Gemma4ForCausalLM"};
    t["dtype"] = dtype;
    t["per_layer_config"] = PerLayerConfig(c);
    return t.dump(2) + "\n";
  }
  t["global_head_dim"] = c.global_head_dim;
  t["num_global_key_value_heads"] = c.attention_k_eq_v ? json(c.num_global_key_value_heads) : json(nullptr);
  t["dtype"] = dtype;
  json top;
  top["architectures"] = {"Gemma4ForConditionalGeneration"};
  top["model_type"] = "gemma4";
  top["text_config"] = t;
  top["vision_config"] = c.vision ? VisionFields(*c.vision, dtype) : json(nullptr);
  top["audio_config"] = c.audio ? AudioFields(*c.audio, dtype) : json(nullptr);
  top["dtype"] = dtype;
  top["eos_token_id"] = EosJson(c.eos_token_ids);
  top["tie_word_embeddings"] = c.tie_word_embeddings;
  // The reference's multimodal forward needs every placeholder id to be an integer (it masks them
  // out of the text ids); absent modalities keep its defaults, as transformers itself writes.
  top["image_token_id"] = c.image_token_id != 0 ? c.image_token_id : 258880;
  top["audio_token_id"] = c.audio_token_id != 0 ? c.audio_token_id : 258881;
  top["video_token_id"] = c.video_token_id != 0 ? c.video_token_id : 258884;
  top["boi_token_id"] = 255999;
  top["eoi_token_id"] = 258882;
  top["boa_token_id"] = 256000;
  top["eoa_token_index"] = 258883;
  top["initializer_range"] = 0.02;
  return top.dump(2) + "\n";
}

std::string GenerationConfigToJson(const Config& c, const GenerationDefaults& g) {
  json j;
  j["bos_token_id"] = c.bos_token_id;
  j["pad_token_id"] = c.pad_token_id;
  j["eos_token_id"] = EosJson(g.eos_token_ids.empty() ? c.eos_token_ids : g.eos_token_ids);
  if (g.sampling) {
    j["do_sample"] = true;
    j["temperature"] = 1.0;
    j["top_k"] = 64;
    j["top_p"] = 0.95;
  }
  return j.dump(2) + "\n";
}

}  // namespace gemmad::model::gemma4
