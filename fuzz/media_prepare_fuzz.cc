// Fuzz target: a request's media as the server prepares them (mm/media_item.h): the bytes as a
// base64 data: URL through PrepareImage (decode + the Gemma 4 image processor at a budget the
// first byte picks), PrepareVideo (FFmpeg decode, frame sampling, per-frame processing) or the
// JPEG frame-list video form (the payload split on 0xFF bytes into frames). Small limits keep
// each run short. Must never crash, hang or abort; errors are fine.
// gemmad-fuzz-libs: gemmad_mm gemmad_io
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/base64.h"
#include "mm/media_item.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gemmad;  // NOLINT
  if (size < 1 || size > 65536) return 0;
  static constexpr int64_t kBudgets[] = {70, 140, 280, 560, 1120};
  mm::VisionMediaOptions o;
  o.source.max_bytes = 1 << 20;
  o.max_image_pixels = 1 << 20;
  o.image_max_soft_tokens = kBudgets[data[0] % 5];
  o.video_num_frames = 4;
  o.video_decode_timeout_ms = 2000;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch ((data[0] / 5) % 3) {
    case 0: (void)mm::PrepareImage("data:image/png;base64," + io::EncodeBase64(body), o); break;
    case 1: (void)mm::PrepareVideo("data:video/mp4;base64," + io::EncodeBase64(body), o); break;
    default: {
      std::string url = "data:video/jpeg;base64,";
      size_t begin = 0;
      for (size_t i = 0; i <= body.size(); ++i) {
        if (i == body.size() || static_cast<uint8_t>(body[i]) == 0xFF) {
          if (begin != 0 || i != 0) url += (url.back() == ',' ? "" : ",");
          url += io::EncodeBase64(body.substr(begin, i - begin));
          begin = i + 1;
        }
      }
      (void)mm::PrepareVideo(url, o);
    }
  }
  return 0;
}
