// Deterministic synthetic RGB test images, identical to synthetic_image() in
// scripts/golden/make_image_processor_goldens.py (the goldens store only their sha256):
//   draw(i)  = splitmix64 mix(seed + (i + 1) * 0x9E3779B97F4A7C15), i = y * W + x
//   noise_c  = (draw(i) >> 8c) & 255
//   grad_c   = (255x / max(W-1, 1) + 2 * (255y / max(H-1, 1)) + 85c) mod 256   (integer division)
//   8x8 blocks ((x >> 3) + (y >> 3)) mod 3: grad_c | (grad_c + noise_c) >> 1 | (noise_c & 128 ? 255 : 0)
#pragma once

#include <cstdint>

#include "mm/image.h"

namespace gemmad::mm::testing {

Image SyntheticImage(int64_t height, int64_t width, uint64_t seed);

}  // namespace gemmad::mm::testing
