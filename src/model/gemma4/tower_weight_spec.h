// Pieces of the vision and audio towers' tensor lists (vision_weight_spec.h, audio_weight_spec.h):
// a top-level tensor, a clippable linear with its optional scalar bounds, and telling a bound by
// its name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {

// Appends `name` (a full checkpoint name: top_level = true) with `shape`.
void AddTowerTensor(std::vector<WeightSpec>* out, std::string name, std::vector<int64_t> shape);
// Appends a clippable linear: with `clipped`, its four scalar bounds name.{input,output}_{min,max}
// (shape []), then name.linear.weight [out_features, in_features].
void AddClippableLinear(std::vector<WeightSpec>* out, bool clipped, const std::string& name, int64_t out_features,
                        int64_t in_features);

// Whether `name` is a clip bound of a clippable linear, in either tower (….input_min / input_max /
// output_min / output_max).
bool IsClipBound(std::string_view name);

}  // namespace gemmad::model::gemma4
