// The towers' shared tensor-list pieces (see tower_weight_spec.h).
#include "model/gemma4/tower_weight_spec.h"

namespace gemmad::model::gemma4 {

void AddTowerTensor(std::vector<WeightSpec>* out, std::string name, std::vector<int64_t> shape) {
  out->push_back({std::move(name), std::move(shape), /*used=*/true, /*top_level=*/true});
}

void AddClippableLinear(std::vector<WeightSpec>* out, bool clipped, const std::string& name, int64_t out_features,
                        int64_t in_features) {
  if (clipped) {
    for (const char* b : {"input_min", "input_max", "output_min", "output_max"}) AddTowerTensor(out, name + "." + b, {});
  }
  AddTowerTensor(out, name + ".linear.weight", {out_features, in_features});
}

bool IsClipBound(std::string_view name) {
  for (std::string_view s : {".input_min", ".input_max", ".output_min", ".output_max"}) {
    if (name.size() >= s.size() && name.substr(name.size() - s.size()) == s) return true;
  }
  return false;
}

}  // namespace gemmad::model::gemma4
