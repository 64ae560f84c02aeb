// Scalar reference RoPE, NeoX rotate-half pairing (text-model.md §5.5): lane i pairs with lane
// i + D/2; angle_i = position · inv_freq[i]. A zero inv_freq (proportional RoPE's padding)
// leaves its pair unchanged.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// x: [num_tokens, num_heads, head_dim] fp32, rotated in place. positions: [num_tokens].
// inv_freq: [head_dim / 2].
void RopeNeox(float* x, int64_t num_tokens, int64_t num_heads, int64_t head_dim,
              const int32_t* positions, const float* inv_freq);

}  // namespace gemmad::kernels::reference
