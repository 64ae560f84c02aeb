// The values of one tensor of a random checkpoint (model/gemma4/random_checkpoint.h), in order:
// deterministic in (seed, the tensor's value name), drawn two 24-bit uniforms per 64-bit draw and
// mapped by the tensor's ValueRecipe. Both the dense writer and the quantized one
// (random_ct_tensors.h) read them here, so a quantized checkpoint holds the quantized values of
// exactly the dense checkpoint of the same seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/rng.h"

namespace gemmad::model::gemma4 {

class RandomValueStream {
 public:
  RandomValueStream(const std::string& name, const std::vector<int64_t>& shape, uint64_t seed);
  // The next `m` values (m even, except for a tensor's last call).
  void Next(int64_t m, float* out);

 private:
  Rng rng_;
  float lo_, span_;
};

}  // namespace gemmad::model::gemma4
