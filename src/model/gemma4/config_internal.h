// Pieces of ParseConfig shared between config.cc, config_attention.cc and config_gemma3.cc (not a
// public API).
#pragma once

#include <optional>

#include "base/result.h"
#include "base/status.h"
#include "model/gemma4/config.h"

namespace gemmad::io {
class JsonFields;
}

namespace gemmad::model::gemma4::internal {

// The sizes both families share: vocab_size, hidden_size, intermediate_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, head_dim, sliding_window, max_position_embeddings,
// rms_norm_eps, final_logit_softcapping (null -> 0 = none). Absent fields keep *c's defaults.
Status ReadCommonDims(const io::JsonFields& f, Config* c);
// pad/bos/eos token ids, tie_word_embeddings, dtype, hidden_activation; attention_bias must be false.
Status ReadTokens(const io::JsonFields& top, const io::JsonFields& f, Config* c);
// layer_types, or when absent (or null) (default_pattern - 1) sliding layers then one full, repeating.
Status ReadLayerTypes(const io::JsonFields& f, int64_t default_pattern, Config* c);
// The whole of a `gemma3_text` config.json (config_gemma3.cc).
Result<Config> ParseGemma3Config(const io::JsonFields& top);

// rope_parameters: {"sliding_attention": {...}, "full_attention": {...}}; null -> defaults.
Status ReadRopeParameters(const io::JsonFields& f, Config* c);
// global_head_dim / num_global_key_value_heads (released layout) or per_layer_config (newer).
Status ReadGlobalAttention(const io::JsonFields& f, Config* c);
// Rejects configs the forward pass cannot run (non-positive sizes, bad sharing, ...).
Status ValidateConfig(const io::JsonFields& f, const Config& c);
// The top level's `vision_config` (model/gemma4/vision_config.h); absent or null -> nullopt.
Status ReadVisionConfig(const io::JsonFields& top, std::optional<VisionConfig>* out);
// The top level's `audio_config` (model/gemma4/audio_config.h); absent or null -> nullopt.
Status ReadAudioConfig(const io::JsonFields& top, std::optional<AudioConfig>* out);

}  // namespace gemmad::model::gemma4::internal
