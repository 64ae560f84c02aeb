// The tensors of a Gemma 4 vision tower and its projector (multimodal.md §3.1): full checkpoint
// names (model.vision_tower.*, model.embed_vision.embedding_projection.weight) and shapes, as
// transformers saves Gemma4ForConditionalGeneration. The weight loader and the random checkpoint
// writer both use this one list.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/gemma4/vision_config.h"
#include "model/gemma4/tower_weight_spec.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {

inline constexpr std::string_view kVisionTowerPrefix = "model.vision_tower.";
inline constexpr std::string_view kVisionProjection = "model.embed_vision.embedding_projection.weight";

// Every tensor (top_level = true: `name` is the full checkpoint name), globals first, then layer
// by layer. With use_clipped_linears each clippable linear also has its four scalar bounds
// ({input,output}_{min,max}, shape []), which a checkpoint may omit (no clipping); with
// standardize, std_bias and std_scale [Dv]. `text_hidden` is the projector's output width Dt.
std::vector<WeightSpec> VisionWeightSpec(const VisionConfig& c, int64_t text_hidden);

// Parameters of the tower and projector (clip bounds included).
int64_t CountVisionParams(const VisionConfig& c, int64_t text_hidden);

}  // namespace gemmad::model::gemma4
