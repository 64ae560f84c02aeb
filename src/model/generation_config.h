// GenerationConfig: the defaults a checkpoint's generation_config.json declares (stop ids and the
// sampling defaults vLLM applies with --generation-config auto). A field is set only when the file
// sets it, so callers can tell "the model asks for top_k 64" from "use the server default".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::model {

struct GenerationConfig {
  std::vector<int64_t> eos_token_ids;  // an int or a list in the file; empty when absent/null
  std::optional<int64_t> bos_token_id, pad_token_id;
  std::optional<bool> do_sample;
  std::optional<double> temperature, top_p, min_p, repetition_penalty;
  std::optional<int64_t> top_k, max_new_tokens, max_length;
  bool from_file = false;  // false when the checkpoint has no generation_config.json

  // The reference library's values for unset fields (temperature 1, top_p 1, top_k 50).
  double temperature_or_default() const { return temperature.value_or(1.0); }
  double top_p_or_default() const { return top_p.value_or(1.0); }
  int64_t top_k_or_default() const { return top_k.value_or(50); }
};

// Parses generation_config.json text; `label` starts error messages.
Result<GenerationConfig> ParseGenerationConfig(std::string_view json_text,
                                               std::string_view label = "generation_config.json");
// Reads <dir>/generation_config.json; a missing file yields an empty config (from_file = false).
Result<GenerationConfig> LoadGenerationConfig(const std::string& model_dir);

}  // namespace gemmad::model
