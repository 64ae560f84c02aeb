// mmproj GGUF tensor names (spec gguf.md §6: llama.cpp's gemma4v vision and gemma4a audio
// encoders) -> Hugging Face names, with the change the converter made to the values or the shape
// that a reader must undo to hand the towers what transformers reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gemmad::model {

enum class MmprojTransform {
  kNone,
  kScalar,          // a 0-d tensor the converter stored as [1] (clip bounds)
  kPatchEmbed,      // HF [D, p·p·3] (p_y, p_x, c) stored as the conv kernel [D, 3, p, p]
  kDepthwiseConv,   // HF [C, 1, K] stored as [C, K]
  kSoftplus,        // HF per_dim_scale stored after softplus
  kUnitLayerScale,  // v.blk.N.out_scale: the towers have none; accepted only when every value is 1
};

struct MmprojTensorMapping {
  std::string hf_name;  // e.g. "model.vision_tower.encoder.layers.0.self_attn.q_proj.linear.weight"
  MmprojTransform transform = MmprojTransform::kNone;
};

// The HF name of an mmproj tensor, or nullopt for a name a Gemma 4 mmproj does not have.
std::optional<MmprojTensorMapping> MapMmprojTensorName(std::string_view gguf_name);

}  // namespace gemmad::model
