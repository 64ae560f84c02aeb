// Fuzz target for DecodeVideo (FFmpeg demuxing and decoding from memory): any bytes must either
// be refused with a one-line "video: ..." InvalidArgument or yield a well-formed sample — as many
// frames as indices, indices strictly increasing inside the frame count, every frame one size
// within the pixel limit. A 2 s decode deadline keeps a slow input from stalling the fuzzer.
// gemmad-fuzz-libs: gemmad_mm
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "mm/video_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::mm::VideoDecodeOptions;
  VideoDecodeOptions o;
  o.num_frames = 8;
  o.max_pixels = int64_t{1} << 20;
  o.max_total_frames = 5000;
  o.max_output_bytes = int64_t{64} << 20;
  o.max_decode_seconds = 2.0;
  o.rgb_conversion = size % 2 == 0 ? gemmad::mm::VideoRgbConversion::kOpenCv : gemmad::mm::VideoRgbConversion::kAccurate;
  auto r = gemmad::mm::DecodeVideo(std::span<const uint8_t>(data, size), o);
  if (!r.ok()) {
    const gemmad::Status st = r.status();
    const std::string& m = st.message();
    GEMMAD_CHECK(st.code() == gemmad::StatusCode::kInvalidArgument || st.code() == gemmad::StatusCode::kResourceExhausted,
                 "unexpected error code: {}", st.ToString());
    GEMMAD_CHECK(m.rfind("video: ", 0) == 0 && m.find('\n') == std::string::npos, "bad message: {}", m);
    return 0;
  }
  GEMMAD_CHECK(!r->frames.empty() && r->frames.size() == r->frame_indices.size(), "frames and indices disagree");
  GEMMAD_CHECK(r->frames.size() <= 8, "more frames than asked");
  for (size_t i = 0; i < r->frames.size(); ++i) {
    const auto& f = r->frames[i];
    GEMMAD_CHECK(r->frame_indices[i] >= 0 && r->frame_indices[i] < r->total_frames, "index outside the video");
    GEMMAD_CHECK(i == 0 || r->frame_indices[i - 1] < r->frame_indices[i], "indices not increasing");
    GEMMAD_CHECK(f.width > 0 && f.height > 0 && f.width * f.height <= o.max_pixels, "bad frame size");
    GEMMAD_CHECK(f.rgb.size() == static_cast<size_t>(f.width * f.height * 3), "bad frame buffer");
    GEMMAD_CHECK(f.width == r->frames[0].width && f.height == r->frames[0].height, "frame size changes");
  }
  return 0;
}
