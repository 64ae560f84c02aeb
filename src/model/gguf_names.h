// GGUF tensor names -> Hugging Face names (spec gguf.md §3.3 gemma3, §3.5 gemma4), with the one
// value transform the converter applied that a reader must undo: Gemma 3 norm weights are stored
// as the effective multiplier 1 + w (HF's Gemma3RMSNorm adds the 1 at run time).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gemmad::model {

enum class GgufArch { kGemma3, kGemma4 };

struct GgufTensorMapping {
  std::string hf_name;          // e.g. "model.layers.3.self_attn.q_proj.weight"
  bool subtract_one = false;    // a Gemma 3 norm weight: the HF value is stored - 1
};

// The HF name of a GGUF tensor, or nullopt for a name this architecture does not have (the
// caller reports it). `rope_freqs.weight` (gemma4) maps to nullopt: it is read into the config.
std::optional<GgufTensorMapping> MapGgufTensorName(GgufArch arch, std::string_view gguf_name);

}  // namespace gemmad::model
