// RoPE inverse frequencies per layer type (text-model.md §5.5), computed in fp32 exactly as the
// reference does: default f[i] = 1 / θ^(2i/D) over all D/2 pairs; proportional rotates only the
// first floor(ρ·D/2) pairs with the exponent over the FULL head dim D, zeros elsewhere, / factor;
// linear (Gemma 3) is default / factor on every pair (transformers' linear scaling).
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "model/gemma4/config.h"

namespace gemmad::model::gemma4 {

// [head_dim / 2] inverse frequencies. Fails on an unknown rope_type.
Result<std::vector<float>> RopeInvFreq(const RopeParams& params, int64_t head_dim);

}  // namespace gemmad::model::gemma4
