#include "synthetic_image.h"

#include <algorithm>

namespace gemmad::mm::testing {

Image SyntheticImage(int64_t height, int64_t width, uint64_t seed) {
  Image img;
  img.height = height;
  img.width = width;
  img.rgb.resize(static_cast<size_t>(height * width * 3));
  const int64_t wd = std::max<int64_t>(width - 1, 1), hd = std::max<int64_t>(height - 1, 1);
  for (int64_t y = 0; y < height; ++y) {
    for (int64_t x = 0; x < width; ++x) {
      const uint64_t i = static_cast<uint64_t>(y * width + x);
      uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      const int64_t region = ((x >> 3) + (y >> 3)) % 3;
      for (int c = 0; c < 3; ++c) {
        const int64_t noise = static_cast<int64_t>((z >> (8 * c)) & 255);
        const int64_t grad = (255 * x / wd + 2 * (255 * y / hd) + 85 * c) % 256;
        const int64_t v = region == 0 ? grad : region == 1 ? (grad + noise) >> 1 : ((noise & 128) != 0 ? 255 : 0);
        img.rgb[static_cast<size_t>(i * 3 + c)] = static_cast<uint8_t>(v);
      }
    }
  }
  return img;
}

}  // namespace gemmad::mm::testing
