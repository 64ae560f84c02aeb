// The tensors of a Gemma 4 audio tower and its projector (multimodal.md §4.2): full checkpoint
// names (model.audio_tower.*, model.embed_audio.embedding_projection.weight) and shapes, as
// transformers saves Gemma4ForConditionalGeneration. The weight loader and the random checkpoint
// writer both use this one list.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/gemma4/audio_config.h"
#include "model/gemma4/tower_weight_spec.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {

inline constexpr std::string_view kAudioTowerPrefix = "model.audio_tower.";
inline constexpr std::string_view kAudioProjection = "model.embed_audio.embedding_projection.weight";

// Every tensor (top_level = true: `name` is the full checkpoint name), SSCP first, then layer by
// layer, then output_proj and the projector. With use_clipped_linears each clippable linear also
// has its four scalar bounds ({input,output}_{min,max}, shape []), which a checkpoint may omit (no
// clipping). `text_hidden` is the projector's output width Dt.
std::vector<WeightSpec> AudioWeightSpec(const AudioConfig& c, int64_t text_hidden);

}  // namespace gemmad::model::gemma4
