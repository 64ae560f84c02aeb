// Pieces of ParseConfig shared between config.cc and config_attention.cc (not a public API).
#pragma once

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

}  // namespace gemmad::model::gemma4::internal
