// VisionConfig: the Gemma 4 vision tower's hyper-parameters (multimodal.md §0, §3), read from the
// `vision_config` object of a multimodal config.json. Absent fields take the reference
// Gemma4VisionConfig defaults (the on-device E2B/E4B tower); `default_output_length` (the released
// configs' default soft-token budget, no longer a transformers field) defaults to 280.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad::model::gemma4 {

struct VisionConfig {
  int64_t hidden_size = 768;           // Dv
  int64_t intermediate_size = 3072;
  int64_t num_hidden_layers = 16;
  int64_t num_attention_heads = 12;
  int64_t num_key_value_heads = 12;
  int64_t head_dim = 64;               // a multiple of 4 (2-D RoPE: two NeoX halves)
  int64_t patch_size = 16;             // p: a patch row holds 3·p² pixels
  int64_t pooling_kernel_size = 3;     // k: soft tokens average k×k patches
  int64_t position_embedding_size = 10240;
  // rope_parameters: "default" (what transformers is given) or "axial" (what it saves).
  std::string rope_type = "default";
  double rope_theta = 100.0;
  double rms_norm_eps = 1e-6;
  std::string hidden_activation = "gelu_pytorch_tanh";  // or "gelu_new" (both tanh-approximate)
  bool use_clipped_linears = false;
  bool standardize = false;
  int64_t default_output_length = 280;

  friend bool operator==(const VisionConfig&, const VisionConfig&) = default;
};

// The vision_config of a config.json: nullopt when the model has none (text-only `gemma4_text`,
// or `vision_config` absent or null). Errors name the file and the field:
// "config.json: vision_config.head_dim: must be a multiple of 4 (2-D RoPE), got 18".
Result<std::optional<VisionConfig>> ParseVisionConfig(std::string_view json_text, std::string_view label = "config.json");

}  // namespace gemmad::model::gemma4
