// The exact set of text-decoder tensors a Config implies (text-model.md §9): names relative to the
// text prefix, shapes, and whether the forward pass reads them. Checkpoint validation, the random
// checkpoint writer and `gemmad inspect` all use this one list.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/gemma4/config.h"

namespace gemmad::model::gemma4 {

// Text-only saves (Gemma4ForCausalLM) put the decoder under "model."; the released multimodal
// checkpoints (Gemma4ForConditionalGeneration) under "model.language_model.".
inline constexpr std::string_view kTextOnlyPrefix = "model.";
inline constexpr std::string_view kMultimodalPrefix = "model.language_model.";

struct WeightSpec {
  std::string name;            // e.g. "layers.3.self_attn.q_proj.weight" (no prefix)
  std::vector<int64_t> shape;  // PyTorch layout: Linear weights are [out_features, in_features]
  // false: may be absent; if present it is shape-checked but never read. These are the K/V
  // projections and k_norm of KV-shared layers (kept in released E2B/E4B files, dropped by newer
  // transformers saves) and a tied lm_head.
  bool used = true;
  bool top_level = false;      // not under the text prefix ("lm_head.weight")

  int64_t num_elements() const;
};

// Every tensor, globals first then layer by layer. Entries with used=false are listed too.
std::vector<WeightSpec> TextWeightSpec(const Config& c);

// Tensors of the vision/audio towers and their projectors in multimodal checkpoints: a text-only
// loader skips them.
bool IsNonTextTensor(std::string_view full_name);

// Parameter counts of the text model.
struct ParamCounts {
  int64_t used = 0;        // read by the forward pass
  int64_t unused = 0;      // listed with used=false (when present in a checkpoint)
  int64_t embedding = 0;   // embed_tokens (tied LM head)
  int64_t per_layer_embedding = 0;  // the PLE table (looked up, one row per token)
};
ParamCounts CountParams(const Config& c, bool include_unused);

}  // namespace gemmad::model::gemma4
