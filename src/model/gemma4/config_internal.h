// Pieces of ParseConfig shared between config.cc and config_attention.cc (not a public API).
#pragma once

#include <optional>

#include "base/status.h"
#include "model/gemma4/config.h"

namespace gemmad::io {
class JsonFields;
}

namespace gemmad::model::gemma4::internal {

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
