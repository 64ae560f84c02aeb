// Bicubic antialiased resize of an 8-bit RGB image, bit-exact with PyTorch's CPU uint8 path (what
// torchvision `resize(uint8, BICUBIC, antialias=True)` runs; multimodal.md §2.4): PIL-style
// separable convolution with the Keys kernel (a = -0.5) stretched by the downscale factor, weights
// normalised in float64 and rounded to int16 at a per-axis fixed-point precision, then
//   out = clamp((2^(p-1) + Σ w_int16 · in) >> p, 0, 255)
// per axis; width first (uint8 intermediate), then height; an axis that keeps its length is not
// resampled. Memory: the output plus O(taps · out_width) scratch per worker (the intermediate is
// streamed through a ring of rows), so a tall thin input never inflates into a huge buffer.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/result.h"
#include "mm/image.h"

namespace gemmad::mm {

// Splits [0, n) into ranges and runs body(begin, end) on each (possibly concurrently); returns once
// all have run. An empty ParallelFor runs everything on the calling thread.
using ParallelFor = std::function<void(int64_t n, const std::function<void(int64_t begin, int64_t end)>& body)>;

// Largest input or output side accepted (no decoder produces more; keeps weight tables bounded).
inline constexpr int64_t kMaxResizeSide = int64_t{1} << 22;
// Largest output accepted, in pixels.
inline constexpr int64_t kMaxResizeOutputPixels = int64_t{1} << 28;

// One axis of the resampler (torch's HelperInterpCubic::compute_index_ranges_int16_weights with
// antialias): output index i reads count[i] input samples from first[i] with the int16 weights
// weights[i * taps + j], j < count[i].
struct BicubicAaAxis {
  int64_t in_len = 0;
  int64_t out_len = 0;
  int64_t taps = 0;              // row stride of `weights`: 2 * ceil(support) + 1
  int precision = 0;             // fixed-point bits p (1..22)
  std::vector<int64_t> first;    // [out_len]
  std::vector<int64_t> count;    // [out_len], each <= taps
  std::vector<int16_t> weights;  // [out_len, taps]

  int64_t max_count() const;
};

// Errors (InvalidArgument) for lengths < 1 or > kMaxResizeSide.
Result<BicubicAaAxis> ComputeBicubicAaAxis(int64_t in_len, int64_t out_len);

// src [H, W, 3] -> [out_height, out_width, 3]. Returns a copy when the size is unchanged. Errors
// (InvalidArgument) for an empty or inconsistent image, sides out of range or an output over
// kMaxResizeOutputPixels. `parallel` splits output rows between workers (results are identical).
Result<Image> ResizeBicubicAntialias(const Image& src, int64_t out_height, int64_t out_width,
                                     const ParallelFor& parallel = {});

}  // namespace gemmad::mm
