// GenerationDefaults: the sampling defaults and extra stop ids vLLM takes from a checkpoint's
// generation_config.json (--generation-config auto|vllm|FOLDER, --override-generation-config).
// Invariant: only the six keys vLLM uses become defaults; values equal to transformers'
// GenerationConfig defaults are dropped (vLLM reads the file through to_diff_dict()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace gemmad::api {

struct GenerationDefaults {
  std::optional<double> temperature, top_p, min_p, repetition_penalty;
  std::optional<int64_t> top_k;
  std::optional<int64_t> max_tokens;  // max_new_tokens
  // eos_token_id of the generation config (an int or a list), read in every mode; the API
  // adds the ids other than the primary EOS to each request's stop_token_ids.
  std::vector<int32_t> eos_token_ids;

  bool has_sampling_defaults() const {
    return temperature || top_p || min_p || repetition_penalty || top_k || max_tokens;
  }
};

// Parses generation_config.json text. `use_sampling_defaults` false = mode "vllm".
Result<GenerationDefaults> ParseGenerationDefaults(std::string_view generation_config_json,
                                                   bool use_sampling_defaults,
                                                   const nlohmann::ordered_json& overrides);

// Reads the defaults for a model directory: mode "auto" (model_dir/generation_config.json),
// "vllm" (no sampling defaults, stop ids still from the model's file) or a folder holding a
// generation_config.json. A missing file means no defaults; a malformed one is an error.
Result<GenerationDefaults> LoadGenerationDefaults(const std::string& model_dir, std::string_view mode,
                                                  const nlohmann::ordered_json& overrides);

}  // namespace gemmad::api
