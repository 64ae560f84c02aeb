// Preset model shapes (see presets.h). T1-T3 must stay identical to scripts/golden/gemma4_configs.py
// and G1 to make_gemma3_goldens.py's G1 (checked by GoldenCheckpointsTest against the
// transformers-written config.json files).
#include "model/gemma4/presets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace gemmad::model::gemma4 {
namespace {

constexpr LayerType S = LayerType::kSliding;
constexpr LayerType F = LayerType::kFull;

std::vector<LayerType> Pattern(int64_t layers, int64_t period) {
  std::vector<LayerType> t;
  for (int64_t i = 0; i < layers; ++i) t.push_back((i + 1) % period == 0 ? F : S);
  return t;
}

// Fields common to the tiny reference configs.
Config Tiny() {
  Config c;
  c.vocab_size = 512;
  c.rms_norm_eps = 1e-6;
  c.max_position_embeddings = 256;
  c.tie_word_embeddings = true;
  c.pad_token_id = 0;
  c.bos_token_id = 2;
  c.eos_token_ids = {1};
  c.rope_sliding = {"default", 10000.0, 1.0, 1.0};
  c.rope_full = {"proportional", 1000000.0, 0.25, 1.0};
  return c;
}

Config T1() {
  Config c = Tiny();
  c.hidden_size = 64, c.intermediate_size = 128, c.num_hidden_layers = 7;
  c.layer_types = {S, S, F, S, S, S, F};
  c.num_attention_heads = 4, c.num_key_value_heads = 2, c.num_global_key_value_heads = 0;
  c.head_dim = 16, c.global_head_dim = 32, c.attention_k_eq_v = false, c.sliding_window = 4;
  c.num_kv_shared_layers = 3, c.use_double_wide_mlp = true;
  c.hidden_size_per_layer_input = 8, c.vocab_size_per_layer_input = 512;
  c.final_logit_softcapping = 30.0;
  return c;
}

Config T2() {
  Config c = Tiny();
  c.hidden_size = 64, c.intermediate_size = 48, c.num_hidden_layers = 6;
  c.layer_types = {S, S, F, S, S, F};
  c.num_attention_heads = 4, c.num_key_value_heads = 2, c.num_global_key_value_heads = 1;
  c.head_dim = 16, c.global_head_dim = 32, c.attention_k_eq_v = true, c.sliding_window = 8;
  c.hidden_size_per_layer_input = 0, c.vocab_size_per_layer_input = 0;
  c.enable_moe_block = true, c.num_experts = 8, c.top_k_experts = 2, c.moe_intermediate_size = 24;
  c.final_logit_softcapping = 5.0;
  return c;
}

Config T3() {
  Config c = Tiny();
  c.hidden_size = 96, c.intermediate_size = 64, c.num_hidden_layers = 8;
  c.layer_types = {S, S, S, F, S, S, S, F};
  c.num_attention_heads = 6, c.num_key_value_heads = 2, c.num_global_key_value_heads = 1;
  c.head_dim = 16, c.global_head_dim = 64, c.attention_k_eq_v = true, c.sliding_window = 6;
  c.num_kv_shared_layers = 4, c.use_double_wide_mlp = true;
  c.hidden_size_per_layer_input = 16, c.vocab_size_per_layer_input = 512;
  c.enable_moe_block = true, c.num_experts = 4, c.top_k_experts = 2, c.moe_intermediate_size = 32;
  c.final_logit_softcapping = 30.0;
  return c;
}

// The Gemma 3 golden G1 (gemma3_text): last layer sliding, window 8, linear RoPE on full layers.
Config G1() {
  Config c = Tiny();
  c.family = Family::kGemma3, c.model_type = "gemma3_text";
  c.hidden_size = 64, c.intermediate_size = 128, c.num_hidden_layers = 7, c.max_position_embeddings = 4096;
  c.layer_types = {S, S, F, S, S, F, S};
  c.num_attention_heads = 2, c.num_key_value_heads = 1, c.head_dim = 32, c.global_head_dim = 32;
  c.sliding_window = 8;
  c.hidden_size_per_layer_input = 0, c.vocab_size_per_layer_input = 0;
  c.final_logit_softcapping = 0.0;
  c.rope_full = {"linear", 1000000.0, 1.0, 8.0};
  c.query_pre_attn_scalar = 24.0, c.attention_scale = std::pow(24.0, -0.5);
  c.v_norm = false, c.norm_weight_plus_one = true, c.has_layer_scalar = false;
  return c;
}

// Released-model facts shared by the full-vocabulary presets.
Config Released() {
  Config c = Tiny();
  c.vocab_size = 262144;
  c.eos_token_ids = {1, 106};
  c.final_logit_softcapping = 30.0;
  c.image_token_id = 258880, c.audio_token_id = 258881, c.video_token_id = 258884;
  c.head_dim = 256, c.global_head_dim = 512;
  return c;
}

// The released vision towers (multimodal.md §0).
VisionConfig OnDeviceTower() {
  VisionConfig v;  // the reference defaults are the E2B/E4B tower
  v.use_clipped_linears = true;
  return v;
}

VisionConfig LargeTower() {
  VisionConfig v;
  v.hidden_size = 1152, v.intermediate_size = 4304, v.num_hidden_layers = 27;
  v.num_attention_heads = v.num_key_value_heads = 16, v.head_dim = 72;
  v.use_clipped_linears = false, v.standardize = true;
  return v;
}

// The e2e model's tower: tiny layers, the released patch size, pooling and position table (it
// reads real images as the image processor prepares them), both clipping and standardize on.
VisionConfig TinyTower() {
  VisionConfig v;
  v.hidden_size = 32, v.intermediate_size = 64, v.num_hidden_layers = 2;
  v.num_attention_heads = v.num_key_value_heads = 2, v.head_dim = 16;
  v.use_clipped_linears = true, v.standardize = true;
  return v;
}

// The released audio tower (E2B and E4B; the reference defaults, multimodal.md §0).
AudioConfig OnDeviceAudio() { return AudioConfig{}; }

// The e2e model's audio tower: multimodal.md §8.3's tiny shape with 16 mel bins (so its features
// come from the feature extractor at feature_size 16) and the real chunking constants, so every
// path is active (12-frame chunks, 12 past keys, softcap 50, clipping).
AudioConfig TinyAudio() {
  AudioConfig a;
  a.hidden_size = 32, a.num_hidden_layers = 2, a.num_attention_heads = 4;
  a.subsampling_conv_channels = {16, 8};
  a.output_proj_dims = 24;
  return a;
}

Config E2e() {
  Config c = Released();
  c.hidden_size = 64, c.intermediate_size = 128, c.num_hidden_layers = 6;
  c.layer_types = {S, S, F, S, S, F};
  c.num_attention_heads = 4, c.num_key_value_heads = 2, c.head_dim = 16, c.global_head_dim = 32;
  c.sliding_window = 32, c.num_kv_shared_layers = 2, c.use_double_wide_mlp = true;
  c.hidden_size_per_layer_input = 8, c.vocab_size_per_layer_input = 262144;
  c.max_position_embeddings = 131072;  // as the released E2B: the seeds' --max-model-len values fit
  c.vision = TinyTower();
  c.audio = TinyAudio();
  return c;
}

// The e2e model's shapes as a 26B-A4B-like MoE (the expert block beside the dense MLP, k_eq_v full
// layers, no PLE, no towers): the seeds' 26B-A4B repos in the e2e tests (with the tokenizer).
Config E2eMoe() {
  Config c = Released();
  c.hidden_size = 64, c.intermediate_size = 96, c.num_hidden_layers = 6;
  c.layer_types = {S, S, F, S, S, F};
  c.num_attention_heads = 4, c.num_key_value_heads = 2, c.num_global_key_value_heads = 1;
  c.head_dim = 16, c.global_head_dim = 32, c.attention_k_eq_v = true, c.sliding_window = 32;
  c.hidden_size_per_layer_input = 0, c.vocab_size_per_layer_input = 0;
  c.enable_moe_block = true, c.num_experts = 8, c.top_k_experts = 2, c.moe_intermediate_size = 32;
  c.max_position_embeddings = 131072;
  return c;
}

Config E2b() {
  Config c = Released();
  c.hidden_size = 1536, c.intermediate_size = 6144, c.num_hidden_layers = 35, c.layer_types = Pattern(35, 5);
  c.num_attention_heads = 8, c.num_key_value_heads = 1, c.sliding_window = 512;
  c.num_kv_shared_layers = 20, c.use_double_wide_mlp = true;
  c.hidden_size_per_layer_input = 256, c.vocab_size_per_layer_input = 262144;
  c.max_position_embeddings = 131072;
  c.vision = OnDeviceTower();
  c.audio = OnDeviceAudio();
  return c;
}

Config E4b() {
  Config c = E2b();
  c.hidden_size = 2560, c.intermediate_size = 10240, c.num_hidden_layers = 42, c.layer_types = Pattern(42, 6);
  c.num_key_value_heads = 2, c.num_kv_shared_layers = 18, c.use_double_wide_mlp = false;
  return c;
}

Config Large(int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t kvg, int64_t inter) {
  Config c = Released();
  c.audio_token_id = 0;
  c.audio.reset();  // the large models have no audio tower
  c.hidden_size = h, c.intermediate_size = inter, c.num_hidden_layers = layers, c.layer_types = Pattern(layers, 6);
  c.num_attention_heads = heads, c.num_key_value_heads = kv, c.num_global_key_value_heads = kvg;
  c.attention_k_eq_v = true, c.sliding_window = 1024, c.max_position_embeddings = 262144;
  c.hidden_size_per_layer_input = 0, c.vocab_size_per_layer_input = 0;
  c.use_bidirectional_attention = "vision";
  c.vision = LargeTower();
  return c;
}

Config A26b() {
  Config c = Large(2816, 30, 16, 8, 2, 2112);
  c.enable_moe_block = true, c.num_experts = 128, c.top_k_experts = 8, c.moe_intermediate_size = 704;
  return c;
}

}  // namespace

std::vector<std::string> PresetNames() {
  return {"t1", "t2", "t3", "g1", "e2e", "e2e-moe", "e2b", "e4b", "26b", "31b"};
}

Result<Preset> FindPreset(std::string_view name) {
  Preset p;
  p.name = std::string(name);
  if (name == "t1") {
    p.config = T1();
  } else if (name == "t2") {
    p.config = T2();
  } else if (name == "t3") {
    p.config = T3();
  } else if (name == "g1") {
    p.config = G1();
  } else if (name == "e2e") {
    p.config = E2e();
    p.multimodal = true;  // the vision tower needs the Gemma4ForConditionalGeneration layout
    p.with_tokenizer = true;
    p.generation = {{1, 106, 50}, true};
  } else if (name == "e2e-moe") {
    p.config = E2eMoe();
    p.with_tokenizer = true;
    p.generation = {{1, 106, 50}, true};
  } else if (name == "e2b" || name == "e4b" || name == "26b" || name == "31b") {
    p.config = name == "e2b" ? E2b() : name == "e4b" ? E4b() : name == "26b" ? A26b()
                                                                            : Large(5376, 60, 32, 16, 4, 21504);
    p.multimodal = true;
    p.unused_kv_tensors = true;
    p.too_large = name == "26b" || name == "31b";
    p.generation = {{1, 106, 50}, true};
  } else {
    return InvalidArgumentError(fmt::format("unknown preset '{}' (expected one of: {})", name,
                                            fmt::join(PresetNames(), ", ")));
  }
  return p;
}

}  // namespace gemmad::model::gemma4
