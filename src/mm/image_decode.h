// DecodeImage: encoded image bytes (JPEG, PNG, WebP, GIF or BMP, told apart by their magic bytes)
// to the 8-bit RGB that vLLM hands the HF image processor (multimodal.md §2.1): PIL's decode, then
// vLLM's ImageMediaIO._convert_image_mode. RGBA is composited onto white with the alpha as paste
// mask; every other mode goes through PIL's convert("RGB") (alpha of LA and of palette
// transparency dropped, CMYK and 16-bit gray as PIL converts them). Animated GIF/WebP: the first
// frame. EXIF orientation is not applied (neither PIL's open nor vLLM does). docs/media.md.
//
// Every failure is InvalidArgument with a one-line message starting "image: ". Declared
// dimensions are checked against the limits before any pixel memory is allocated.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/result.h"
#include "mm/image.h"

namespace gemmad::mm {

enum class ImageFormat : uint8_t { kUnknown, kJpeg, kPng, kWebp, kGif, kBmp };

std::string_view ImageFormatName(ImageFormat format);  // "JPEG", "PNG", ... ("unknown")

// The format the leading bytes announce (file names and MIME types are never consulted).
ImageFormat SniffImageFormat(std::span<const uint8_t> bytes);

struct ImageDecodeLimits {
  // PIL's Image.MAX_IMAGE_PIXELS (1024 * 1024 * 1024 // 4 // 3): PIL warns above it and refuses
  // above twice it; we refuse above it (≈ 268 MB of RGB).
  int64_t max_pixels = 89'478'485;
  // Encoded size; 64 MiB is far above any sane photo and bounds the work a request can cause.
  int64_t max_bytes = int64_t{64} << 20;
};

Result<Image> DecodeImage(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits = {});

}  // namespace gemmad::mm
