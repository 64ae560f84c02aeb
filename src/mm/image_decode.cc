// DecodeImage: sniffs the format from the magic bytes and hands the bytes to that format's decoder
// (jpeg_decode.cc, png_decode.cc, webp_decode.cc, gif_decode.cc, bmp_decode.cc); the helpers they
// share (dimension limits, error messages, compositing onto white).
#include "mm/image_decode.h"

#include <fmt/format.h>

#include <cstring>

#include "mm/image_decode_internal.h"

namespace gemmad::mm {

namespace {

bool StartsWith(std::span<const uint8_t> bytes, size_t offset, std::string_view magic) {
  return bytes.size() >= offset + magic.size() && std::memcmp(bytes.data() + offset, magic.data(), magic.size()) == 0;
}

}  // namespace

std::string_view ImageFormatName(ImageFormat format) {
  switch (format) {
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kWebp: return "WebP";
    case ImageFormat::kGif: return "GIF";
    case ImageFormat::kBmp: return "BMP";
    case ImageFormat::kUnknown: break;
  }
  return "unknown";
}

// The same prefixes PIL's plugins accept (JpegImagePlugin, PngImagePlugin, WebPImagePlugin,
// GifImagePlugin, BmpImagePlugin `_accept`).
ImageFormat SniffImageFormat(std::span<const uint8_t> bytes) {
  if (StartsWith(bytes, 0, "\xFF\xD8\xFF")) return ImageFormat::kJpeg;
  if (StartsWith(bytes, 0, "\x89PNG\r\n\x1A\n")) return ImageFormat::kPng;
  if (StartsWith(bytes, 0, "RIFF") && StartsWith(bytes, 8, "WEBP") &&
      (StartsWith(bytes, 12, "VP8 ") || StartsWith(bytes, 12, "VP8L") || StartsWith(bytes, 12, "VP8X"))) {
    return ImageFormat::kWebp;
  }
  if (StartsWith(bytes, 0, "GIF87a") || StartsWith(bytes, 0, "GIF89a")) return ImageFormat::kGif;
  if (StartsWith(bytes, 0, "BM")) return ImageFormat::kBmp;
  return ImageFormat::kUnknown;
}

Result<Image> DecodeImage(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  if (bytes.empty()) return InvalidArgumentError("image: empty data");
  if (static_cast<uint64_t>(bytes.size()) > static_cast<uint64_t>(limits.max_bytes)) {
    return InvalidArgumentError(
        fmt::format("image: {} bytes exceeds the limit of {} bytes", bytes.size(), limits.max_bytes));
  }
  switch (SniffImageFormat(bytes)) {
    case ImageFormat::kJpeg: return internal::DecodeJpeg(bytes, limits);
    case ImageFormat::kPng: return internal::DecodePng(bytes, limits);
    case ImageFormat::kWebp: return internal::DecodeWebp(bytes, limits);
    case ImageFormat::kGif: return internal::DecodeGif(bytes, limits);
    case ImageFormat::kBmp: return internal::DecodeBmp(bytes, limits);
    case ImageFormat::kUnknown: break;
  }
  return InvalidArgumentError("image: unsupported format (not JPEG, PNG, WebP, GIF or BMP)");
}

namespace internal {

Status CheckDimensions(std::string_view format, uint64_t width, uint64_t height, const ImageDecodeLimits& limits) {
  if (width == 0 || height == 0) {
    return InvalidArgumentError(fmt::format("image: {} declares a zero-size image ({}x{})", format, width, height));
  }
  // width and height come from 32-bit header fields at most, so the product fits in 64 bits.
  if (width > (uint64_t{1} << 32) || height > (uint64_t{1} << 32) ||
      width * height > static_cast<uint64_t>(limits.max_pixels)) {
    return InvalidArgumentError(
        fmt::format("image: {}x{} pixels exceeds the limit of {} pixels", width, height, limits.max_pixels));
  }
  return OkStatus();
}

Image NewImage(uint64_t width, uint64_t height) {
  Image im;
  im.width = static_cast<int64_t>(width);
  im.height = static_cast<int64_t>(height);
  im.rgb.assign(static_cast<size_t>(width * height * 3), 0);
  return im;
}

Status TruncatedError(std::string_view format) {
  return InvalidArgumentError(fmt::format("image: truncated {} data", format));
}

Status CorruptError(std::string_view format, std::string_view detail) {
  return InvalidArgumentError(fmt::format("image: invalid {} data ({})", format, detail));
}

void RgbaOverWhite(const uint8_t* rgba, uint64_t pixels, uint8_t* rgb) {
  for (uint64_t i = 0; i < pixels; ++i, rgba += 4, rgb += 3) {
    rgb[0] = OverWhite(rgba[0], rgba[3]);
    rgb[1] = OverWhite(rgba[1], rgba[3]);
    rgb[2] = OverWhite(rgba[2], rgba[3]);
  }
}

}  // namespace internal
}  // namespace gemmad::mm
