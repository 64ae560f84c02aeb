// AudioConfig: the Gemma 4 audio tower's hyper-parameters (multimodal.md §0, §4), read from the
// `audio_config` object of a multimodal config.json. Absent fields take the reference
// Gemma4AudioConfig defaults (transformers 5.25.0), which equal the E2B/E4B checkpoints.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad::model::gemma4 {

struct AudioConfig {
  int64_t hidden_size = 1024;          // Da
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 8;     // head_dim = Da / heads
  std::string hidden_act = "silu";
  // SSCP conv channels [c0, c1]; the feature extractor's mel count must equal c0 (§4.3).
  std::array<int64_t, 2> subsampling_conv_channels = {128, 32};
  int64_t conv_kernel_size = 5;        // the LConv's causal depthwise kernel
  double residual_weight = 0.5;        // macaron FFN half step
  int64_t attention_chunk_size = 12;   // C
  int64_t attention_context_left = 13; // P = left - 1 past keys
  int64_t attention_context_right = 0; // R future keys
  double attention_logit_cap = 50.0;
  double attention_invalid_logits_value = -1e9;
  bool use_clipped_linears = true;
  double rms_norm_eps = 1e-6;
  double gradient_clipping = 1e10;
  int64_t output_proj_dims = 1536;     // Do: output_proj's width, embed_audio's input

  int64_t head_dim() const { return hidden_size / num_attention_heads; }
  int64_t num_mels() const { return subsampling_conv_channels[0]; }
  int64_t max_past() const { return attention_context_left - 1; }  // P
  // Keys per query block: C + P + R; the relative table has context_size() / 2 + 1 rows.
  int64_t context_size() const { return attention_chunk_size + max_past() + attention_context_right; }

  friend bool operator==(const AudioConfig&, const AudioConfig&) = default;
};

// The audio_config of a config.json: nullopt when the model has none (text-only `gemma4_text`,
// or `audio_config` absent or null). Errors name the file and the field:
// "config.json: audio_config.hidden_size: 30 is not a multiple of num_attention_heads 4".
Result<std::optional<AudioConfig>> ParseAudioConfig(std::string_view json_text, std::string_view label = "config.json");

}  // namespace gemmad::model::gemma4
