// Gemma4TextConfig as gemmad uses it (text-model.md §2): the decoder hyper-parameters read from
// config.json (top level or nested `text_config`) plus the derived per-layer plan. The same
// Config also describes a Gemma 3 text decoder (transformers' Gemma3TextConfig, model_type
// `gemma3_text`): `family` says which, and the per-family switches below (attention_scale, v_norm,
// norm_weight_plus_one, has_layer_scalar) are what the forward pass reads; the Gemma-4-only
// features (PLE, MoE, KV sharing, k_eq_v, a separate global head dim, proportional RoPE) are off.
// Invariant after ParseConfig: layer_types.size() == num_hidden_layers; Gemma 4: the last layer is
// full; Gemma 3: at least one layer is full (the last may be sliding, as in Gemma 3 1B).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/gemma4/audio_config.h"
#include "model/gemma4/vision_config.h"

namespace gemmad::model::gemma4 {

enum class LayerType : uint8_t { kSliding, kFull };

// kGemma4: model_type gemma4 / gemma4_text. kGemma3: model_type gemma3_text (Gemma3ForCausalLM).
enum class Family : uint8_t { kGemma4, kGemma3 };

struct RopeParams {
  std::string rope_type = "default";  // "default", "proportional" (Gemma 4) or "linear" (Gemma 3: θ-freqs / factor)
  double rope_theta = 10000.0;
  double partial_rotary_factor = 1.0;
  double factor = 1.0;
};

struct Config {
  Family family = Family::kGemma4;
  std::string model_type = "gemma4_text";  // as config.json names it: gemma4, gemma4_text or gemma3_text
  int64_t vocab_size = 262144;
  int64_t hidden_size = 0;         // H
  int64_t num_hidden_layers = 0;   // L
  std::vector<LayerType> layer_types;
  int64_t num_attention_heads = 0;         // nH
  int64_t num_key_value_heads = 0;         // nKV (sliding, and full unless k_eq_v)
  int64_t num_global_key_value_heads = 0;  // nKVg (full layers when attention_k_eq_v); 0 = unused.
                                           // ParseConfig sets it to nKV when k_eq_v and null (HF).
  int64_t head_dim = 256;                  // d_s
  int64_t global_head_dim = 512;           // d_f
  bool attention_k_eq_v = false;
  int64_t sliding_window = 512;  // W
  RopeParams rope_sliding;       // rope_parameters.sliding_attention
  RopeParams rope_full;          // rope_parameters.full_attention
  int64_t intermediate_size = 0;  // I
  bool use_double_wide_mlp = false;
  int64_t num_kv_shared_layers = 0;          // S
  int64_t hidden_size_per_layer_input = 0;   // P; 0 disables PLE
  int64_t vocab_size_per_layer_input = 0;
  bool enable_moe_block = false;
  int64_t num_experts = 0;             // E
  int64_t top_k_experts = 0;           // K
  int64_t moe_intermediate_size = 0;   // Ie
  double rms_norm_eps = 1e-6;
  double final_logit_softcapping = 0.0;  // 0 = none
  int64_t max_position_embeddings = 131072;
  bool tie_word_embeddings = true;
  int64_t pad_token_id = 0, bos_token_id = 2;  // -1 when null in config.json
  std::vector<int64_t> eos_token_ids = {1};
  std::string torch_dtype = "bfloat16";  // as declared by the checkpoint ("dtype"/"torch_dtype")
  // Multimodal wrapper facts (0 when the checkpoint is text-only).
  bool multimodal = false;  // config.json had a text_config (weights under model.language_model.)
  int64_t image_token_id = 0, audio_token_id = 0, video_token_id = 0;
  std::optional<VisionConfig> vision;  // the vision tower (model/gemma4/vision_config.h); nullopt: none
  std::optional<AudioConfig> audio;    // the audio tower (model/gemma4/audio_config.h); nullopt: none
  // Informational fields (added by the config parser).
  std::vector<std::string> architectures;       // e.g. {"Gemma4ForConditionalGeneration"}
  std::string hidden_activation = "gelu_pytorch_tanh";  // or "gelu_new" (both tanh-approximate)
  std::string use_bidirectional_attention;      // "" (null) or "vision"; "all" is rejected
  bool per_layer_config_layout = false;         // config.json used `per_layer_config` (transformers >= 5.2x)

  // --- per-family switches of the forward pass (set by ParseConfig from the family) ---
  // Gemma 3's query_pre_attn_scalar (HF default 256); 0 for Gemma 4 (unused).
  double query_pre_attn_scalar = 0.0;
  // softmax(q·kᵀ·attention_scale): Gemma 4 1.0 (q/k are RMS-normed); Gemma 3 query_pre_attn_scalar^-0.5.
  double attention_scale = 1.0;
  // Gemma 4 applies a weightless RMSNorm to V before the cache; Gemma 3 does not.
  bool v_norm = true;
  // Every RMSNorm weight w of the checkpoint means x̂·(1 + w) (Gemma3RMSNorm: the 4 layer norms,
  // q_norm, k_norm and the final norm), as opposed to Gemma 4's x̂·w. BindWeights adds the 1 into
  // owned f32 copies, so Weights always hold the multiplier and the kernels compute x̂·w.
  bool norm_weight_plus_one = false;
  // layers.N.layer_scalar exists and scales each layer's output (Gemma 4); Gemma 3 has none (= 1).
  bool has_layer_scalar = true;

  // --- derived per-layer plan (filled by ParseConfig) ---
  int64_t first_kv_shared_layer() const { return num_hidden_layers - num_kv_shared_layers; }  // F
  bool is_kv_shared(int64_t l) const { return num_kv_shared_layers > 0 && l >= first_kv_shared_layer(); }
  bool is_sliding(int64_t l) const { return layer_types[l] == LayerType::kSliding; }
  int64_t layer_head_dim(int64_t l) const { return is_sliding(l) ? head_dim : global_head_dim; }
  int64_t layer_num_kv_heads(int64_t l) const {
    return (!is_sliding(l) && attention_k_eq_v) ? num_global_key_value_heads : num_key_value_heads;
  }
  int64_t layer_intermediate_size(int64_t l) const {
    return (use_double_wide_mlp && is_kv_shared(l)) ? 2 * intermediate_size : intermediate_size;
  }
  // Donor of a KV-shared layer: the last non-shared layer of the same type; -1 if not shared.
  int64_t kv_donor(int64_t l) const;
};

// Parses config.json text (text-only or multimodal with `text_config`; released field layout
// and the newer `per_layer_config` layout). Errors name the field: "config.json: hidden_size: ...".
Result<Config> ParseConfig(std::string_view json_text);
// The same, with `label` (e.g. the file's path) starting every error message.
Result<Config> ParseConfig(std::string_view json_text, std::string_view label);
// Reads and parses <dir>/config.json.
Result<Config> LoadConfig(const std::string& model_dir);

}  // namespace gemmad::model::gemma4
