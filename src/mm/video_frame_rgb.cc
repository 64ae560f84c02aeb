// FFmpeg frame -> RGB conversion with libswscale, and 90-degree rotations.
#include "mm/video_frame_rgb.h"

#include <fmt/format.h>

#include <cstring>

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace gemmad::mm {
namespace {

constexpr int kOpenCvFlags = SWS_BICUBIC;  // CvCapture_FFMPEG::retrieveFrame
constexpr int kAccurateFlags = SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT;
constexpr int64_t kRowAlign = 64;

}  // namespace

FrameToRgb::~FrameToRgb() { sws_freeContext(sws_); }

Result<Image> FrameToRgb::Convert(const AVFrame& frame) {
  const int w = frame.width;
  const int h = frame.height;
  if (w <= 0 || h <= 0) return InvalidArgumentError("video: a decoded frame has no size (corrupt data)");
  const auto fmt = static_cast<AVPixelFormat>(frame.format);
  sws_ = sws_getCachedContext(sws_, w, h, fmt, w, h, AV_PIX_FMT_RGB24,
                              mode_ == VideoRgbConversion::kOpenCv ? kOpenCvFlags : kAccurateFlags, nullptr, nullptr, nullptr);
  if (sws_ == nullptr) {
    const char* name = av_get_pix_fmt_name(fmt);
    return InvalidArgumentError(
        fmt::format("video: cannot convert pixel format '{}' to RGB", name != nullptr ? name : "unknown"));
  }
  // libswscale writes whole rows; give it aligned, padded rows and copy out the exact image.
  const int64_t row = int64_t{w} * 3;
  const int64_t stride = (row + kRowAlign - 1) / kRowAlign * kRowAlign;
  scratch_.resize(static_cast<size_t>(stride * h + kRowAlign));
  uint8_t* dst[4] = {scratch_.data(), nullptr, nullptr, nullptr};
  int dst_stride[4] = {static_cast<int>(stride), 0, 0, 0};
  const int rows = sws_scale(sws_, frame.data, frame.linesize, 0, h, dst, dst_stride);
  if (rows != h) return InvalidArgumentError("video: a frame could not be converted to RGB (corrupt data)");
  Image img;
  img.height = h;
  img.width = w;
  img.rgb.resize(static_cast<size_t>(row * h));
  for (int y = 0; y < h; ++y) {
    std::memcpy(img.rgb.data() + y * row, scratch_.data() + y * stride, static_cast<size_t>(row));
  }
  return img;
}

Image RotateClockwise(const Image& image, int degrees) {
  if (degrees != 90 && degrees != 180 && degrees != 270) return image;
  const int64_t h = image.height;
  const int64_t w = image.width;
  Image out;
  out.height = degrees == 180 ? h : w;
  out.width = degrees == 180 ? w : h;
  out.rgb.resize(image.rgb.size());
  for (int64_t y = 0; y < out.height; ++y) {
    for (int64_t x = 0; x < out.width; ++x) {
      int64_t sy = 0;
      int64_t sx = 0;
      if (degrees == 90) {  // the left column, read bottom to top, becomes the top row
        sy = h - 1 - x;
        sx = y;
      } else if (degrees == 180) {
        sy = h - 1 - y;
        sx = w - 1 - x;
      } else {  // 270: the right column, read top to bottom, becomes the top row
        sy = x;
        sx = w - 1 - y;
      }
      std::memcpy(&out.rgb[static_cast<size_t>((y * out.width + x) * 3)],
                  &image.rgb[static_cast<size_t>((sy * w + sx) * 3)], 3);
    }
  }
  return out;
}

}  // namespace gemmad::mm
