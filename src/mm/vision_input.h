// VisionPatches: one image (or one video frame) after the Gemma 4 image processor
// (multimodal.md §2): the patch rows the vision tower reads, their (x, y) grid positions and the
// number of soft tokens the tower will produce. It is the ItemData of image and video items;
// the runner's vision encoder downcasts to it. Immutable once built.
#pragma once

#include <cstdint>
#include <vector>

#include "mm/item.h"

namespace gemmad::mm {

struct VisionPatches final : ItemData {
  int64_t patch_size = 0;     // p (16 in the released checkpoints)
  int64_t pooling_kernel = 0; // k (3)
  int64_t grid_h = 0;         // patch rows    (resized height / p), a multiple of k
  int64_t grid_w = 0;         // patch columns (resized width / p),  a multiple of k
  // [grid_h * grid_w, 3 * p * p] in [0, 1]; patch n = row * grid_w + col; inside a patch the
  // element (r, c, ch) sits at (r * p + c) * 3 + ch.
  std::vector<float> pixels;
  // [grid_h * grid_w, 2]: (x, y) = (n % grid_w, n / grid_w).
  std::vector<int32_t> positions;

  int64_t num_patches() const { return grid_h * grid_w; }
  int64_t patch_dim() const { return 3 * patch_size * patch_size; }
  // Soft tokens = placeholder rows: (grid_h / k) * (grid_w / k).
  int64_t num_soft_tokens() const { return (grid_h / pooling_kernel) * (grid_w / pooling_kernel); }
};

}  // namespace gemmad::mm
