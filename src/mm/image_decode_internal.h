// Shared pieces of the per-format decoders behind DecodeImage (mm/image_decode.h): the
// per-format entry points, the dimension check that runs before pixel memory is allocated, the
// error messages and vLLM's RGBA-onto-white compositing. Not for use outside src/mm.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/result.h"
#include "base/status.h"
#include "mm/image.h"
#include "mm/image_decode.h"

namespace gemmad::mm::internal {

Result<Image> DecodeJpeg(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits);
Result<Image> DecodePng(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits);
Result<Image> DecodeWebp(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits);
Result<Image> DecodeGif(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits);
Result<Image> DecodeBmp(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits);

// Ok when width and height are non-zero and width * height <= limits.max_pixels; otherwise
// "image: <W>x<H> pixels exceeds the limit of <N> pixels" or "image: <FORMAT> declares a
// zero-size image (<W>x<H>)". Call with the header's dimensions before allocating.
Status CheckDimensions(std::string_view format, uint64_t width, uint64_t height, const ImageDecodeLimits& limits);

// An Image of the given (already checked) size, rgb zero-filled.
Image NewImage(uint64_t width, uint64_t height);

Status TruncatedError(std::string_view format);                          // "image: truncated PNG data"
Status CorruptError(std::string_view format, std::string_view detail);  // "image: invalid PNG data (detail)"

// vLLM's rgba_to_rgb: Image.new("RGB", size, (255, 255, 255)).paste(im, mask=alpha). PIL's paste
// blends each channel as round((a * c + (255 - a) * 255) / 255) (checked for all 65,536 pairs).
inline uint8_t OverWhite(uint8_t c, uint8_t a) {
  return static_cast<uint8_t>((a * c + (255 - a) * 255 + 127) / 255);
}

// Writes `pixels` RGBA pixels from `rgba` as RGB composited onto white into `rgb`.
void RgbaOverWhite(const uint8_t* rgba, uint64_t pixels, uint8_t* rgb);

}  // namespace gemmad::mm::internal
