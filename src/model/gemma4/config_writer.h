// Writing config.json / generation_config.json for a Config, in the layouts the reference
// produces: text-only in the `per_layer_config` layout transformers 5.x writes for
// Gemma4ForCausalLM, multimodal in the released Gemma4ForConditionalGeneration layout
// (`text_config` with global_head_dim / num_global_key_value_heads). A Gemma 3 Config
// (Family::kGemma3) is written as transformers saves a Gemma3ForCausalLM (`gemma3_text`, text-only
// layout only). ParseConfig reads each back to an equal Config.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/gemma4/config.h"

namespace gemmad::model::gemma4 {

enum class ConfigLayout { kTextOnly, kMultimodal };

// `dtype` is the torch spelling written as "dtype" ("bfloat16", "float32", "float16").
std::string ConfigToJson(const Config& c, ConfigLayout layout, const std::string& dtype);

struct GenerationDefaults {
  std::vector<int64_t> eos_token_ids;  // written as an int when there is exactly one
  bool sampling = false;               // also write do_sample/temperature/top_k/top_p like the IT models
};
std::string GenerationConfigToJson(const Config& c, const GenerationDefaults& g);

}  // namespace gemmad::model::gemma4
