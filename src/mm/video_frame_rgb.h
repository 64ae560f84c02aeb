// Decoded FFmpeg frames to mm::Image (8-bit RGB) and OpenCV's metadata rotation. Internal to the
// video decoder (video_decode.h).
//
// Colour, two modes (docs/media.md "Video" has the measured differences):
//  kOpenCv    libswscale with SWS_BICUBIC alone, as OpenCV's capture converts (and so vLLM): equal
//             to OpenCV and to `ffmpeg -pix_fmt rgb24`. For 4:2:0 input of even height libswscale
//             takes its fast path, which repeats each chroma sample instead of interpolating (a
//             few levels, up to ~160 at sharp colour edges, from the accurate result) and whose
//             SIMD code may round differently on other CPU families.
//  kAccurate  SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT: interpolated
//             chroma, the same bytes on every CPU; equal to `ffmpeg -sws_flags
//             bicubic+accurate_rnd+full_chroma_int+bitexact -pix_fmt rgb24`.
// Neither sets colour-space details, like OpenCV: BT.601 coefficients, limited range except for
// the full-range (yuvj*) pixel formats; the stream's colour tags are not read.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "mm/image.h"

struct AVFrame;
struct SwsContext;

namespace gemmad::mm {

enum class VideoRgbConversion { kOpenCv, kAccurate };

class FrameToRgb {
 public:
  explicit FrameToRgb(VideoRgbConversion mode) : mode_(mode) {}
  ~FrameToRgb();
  FrameToRgb(const FrameToRgb&) = delete;
  FrameToRgb& operator=(const FrameToRgb&) = delete;

  // The frame as RGB (same size). Errors: a pixel format libswscale cannot convert.
  Result<Image> Convert(const AVFrame& frame);

 private:
  VideoRgbConversion mode_;
  SwsContext* sws_ = nullptr;
  std::vector<uint8_t> scratch_;  // padded rows for libswscale
};

// `image` turned clockwise by `degrees` (0, 90, 180 or 270; anything else returns it unchanged),
// as OpenCV's ROTATE_90_CLOCKWISE / ROTATE_180 / ROTATE_90_COUNTERCLOCKWISE do.
Image RotateClockwise(const Image& image, int degrees);

}  // namespace gemmad::mm
