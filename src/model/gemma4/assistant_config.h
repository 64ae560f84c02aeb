// Gemma4AssistantConfig (text-model.md §12.1): the MTP drafter checkpoints
// (google/gemma-4-*-it-assistant, model_type gemma4_assistant). The decoder is a Gemma4TextConfig
// in `text_config` whose layers all share the TARGET's KV; it is parsed by ParseConfig with
// num_kv_shared_layers set to 0, as vLLM's hf_config_override does (the sharing is with another
// model, set up by whoever runs the draft step).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "model/gemma4/config.h"

namespace gemmad::model::gemma4 {

struct AssistantConfig {
  Config text;                         // the assistant's decoder (Hd = text.hidden_size)
  int64_t backbone_hidden_size = 0;    // Hb: the target's hidden size
  bool use_ordered_embeddings = false; // centroid masking (§12.4; E2B/E4B assistants)
  int64_t num_centroids = 0;           // C (ordered only; divides the vocabulary)
  int64_t centroid_top_k = 0;          // clusters kept per step (ordered only)
};

// Errors name the field ("<label>: backbone_hidden_size: ..."), as ParseConfig's do.
Result<AssistantConfig> ParseAssistantConfig(std::string_view json_text, std::string_view label);

// The assistant fits `target` (§12.1): Hb = the target's hidden size, the same vocabulary, and
// per layer type the target's KV heads and head dim (it attends over the target's K/V).
Status CheckAssistantFitsTarget(const AssistantConfig& a, const Config& target);

}  // namespace gemmad::model::gemma4
