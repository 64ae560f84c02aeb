// Fuzz target for DecodeImage (JPEG, PNG, WebP, GIF, BMP): any bytes must either decode to an
// image within the limits whose buffer matches its size, identically on a second run, or be
// refused with a one-line InvalidArgument "image: ..." message. Never a crash, hang or unbounded
// allocation (the pixel limit is lowered so the fuzzer explores instead of allocating).
// gemmad-fuzz-libs: gemmad_mm
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "mm/image_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::mm::DecodeImage;
  gemmad::mm::ImageDecodeLimits limits;
  limits.max_pixels = int64_t{1} << 20;
  limits.max_bytes = int64_t{1} << 20;
  std::span<const uint8_t> bytes(data, size);
  auto r = DecodeImage(bytes, limits);
  if (r.ok()) {
    GEMMAD_CHECK(r->width > 0 && r->height > 0, "empty image decoded");
    GEMMAD_CHECK(r->width * r->height <= limits.max_pixels, "image over the pixel limit");
    GEMMAD_CHECK(r->rgb.size() == static_cast<size_t>(r->width * r->height * 3), "buffer does not match the size");
    auto again = DecodeImage(bytes, limits);
    GEMMAD_CHECK(again.ok() && again->rgb == r->rgb, "decoding is not deterministic");
  } else {
    const auto& s = r.status();
    GEMMAD_CHECK(s.code() == gemmad::StatusCode::kInvalidArgument, "not InvalidArgument: {}", s.ToString());
    GEMMAD_CHECK(s.message().rfind("image: ", 0) == 0, "message without the image: prefix: {}", s.message());
    GEMMAD_CHECK(s.message().find('\n') == std::string::npos, "multi-line message: {}", s.message());
  }
  return 0;
}
