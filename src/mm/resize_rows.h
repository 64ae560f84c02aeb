// Row kernels of the bicubic antialiased resize (resize_bicubic_aa.h): one horizontally or one
// vertically resampled row in torch's fixed-point arithmetic. The sums are exact int32, so every
// implementation gives identical bytes; the AVX2 one is picked at run time where the CPU has it.
// Internal to mm (the resize and its tests).
#pragma once

#include <cstdint>

#include "mm/resize_bicubic_aa.h"

namespace gemmad::mm::internal {

// in [ax.in_len, 3] -> out [ax.out_len, 3].
using HorizontalRowFn = void (*)(const BicubicAaAxis& ax, const uint8_t* in, uint8_t* out);
// out[k] = clamp((2^(p-1) + Σ_j w[j] * rows[j][k]) >> p), j < n, k < len.
using VerticalRowFn = void (*)(const uint8_t* const* rows, const int16_t* w, int64_t n, int precision, int64_t len,
                               uint8_t* out);

struct ResizeRowKernels {
  const char* name;
  HorizontalRowFn horizontal;
  VerticalRowFn vertical;
};

// Portable C++.
const ResizeRowKernels& GenericResizeRowKernels();
// AVX2 (x86-64), or null when the CPU (or the build target) lacks it.
const ResizeRowKernels* Avx2ResizeRowKernels();
// The fastest available.
const ResizeRowKernels& BestResizeRowKernels();

// ResizeBicubicAntialias with the given kernels (tests compare them).
Result<Image> ResizeBicubicAntialiasWith(const ResizeRowKernels& kernels, const Image& src, int64_t out_height,
                                         int64_t out_width, const ParallelFor& parallel = {});

}  // namespace gemmad::mm::internal
