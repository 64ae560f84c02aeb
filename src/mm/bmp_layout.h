// BMP header parsing for the BMP decoder (bmp_decode.cc): what PIL's BmpImagePlugin._bitmap
// decides from a file's headers (docs/adr/004-bmp-decoder.md says why this is hand-written), as
// plain data. Not for use outside src/mm.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "base/result.h"
#include "mm/image_decode.h"

namespace gemmad::mm::internal {

// PIL's raw modes, which say how a row is unpacked (independent of the file's bit depth: PIL
// pairs a 2-entry black/white palette with "1" and a gray-ramp palette with "L" whatever the
// depth, and we follow it).
enum class BmpRaw : uint8_t {
  kBits1,    // "P;1" / "1": 1 bit per pixel, most significant first
  kBits4,    // "P;4": 4 bits per pixel, high nibble first
  kBits8,    // "P" / "L"
  kBgr15,    // "BGR;15": x1r5g5b5 little-endian, channels scaled v * 255 / 31
  kBgr16,    // "BGR;16": r5g6b5
  kBgr24,    // "BGR"
  kBytes32,  // 32-bit pixel; channel byte positions in BmpLayout
};

// PIL's mode after open, which decides vLLM's conversion.
enum class BmpMode : uint8_t { kP, kOne, kL, kRgb, kRgba };

struct BmpLayout {
  uint64_t width = 0;
  uint64_t height = 0;
  bool top_down = false;  // the rows are stored top row first
  BmpRaw raw = BmpRaw::kBits8;
  BmpMode mode = BmpMode::kP;
  std::array<int8_t, 4> byte_of = {2, 1, 0, -1};  // kBytes32: the byte holding R, G, B, A (-1: none)
  bool rle = false;                                // RLE8 / RLE4 (PIL's BmpRleDecoder)
  bool rle4 = false;
  uint64_t stride = 0;       // bytes per stored row (raw data)
  uint64_t data_offset = 0;  // where the pixel data starts
  std::array<std::array<uint8_t, 3>, 256> palette{};  // kP; entries past the file's are black
};

// Reads the file and info headers, the masks and the palette; dimensions are not yet checked.
Result<BmpLayout> ParseBmpLayout(std::span<const uint8_t> bytes);

}  // namespace gemmad::mm::internal
