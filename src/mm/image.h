// A decoded still image or video frame: 8-bit RGB, interleaved, row-major ([height, width, 3]),
// alpha already resolved the way vLLM does it (multimodal.md §2.1). Plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gemmad::mm {

struct Image {
  int64_t height = 0;
  int64_t width = 0;
  std::vector<uint8_t> rgb;  // [height, width, 3]

  uint8_t at(int64_t y, int64_t x, int c) const { return rgb[static_cast<size_t>((y * width + x) * 3 + c)]; }
};

}  // namespace gemmad::mm
