// Video decoding and vLLM-compatible frame sampling (video_decode.h).
#include "mm/video_decode.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "mm/video_frame_rgb.h"
#include "mm/video_reader.h"

namespace gemmad::mm {
namespace {

constexpr double kMaxTimeLimitS = 1e6;  // keeps now() + limit representable

Status CheckOptions(const VideoDecodeOptions& o) {
  if (o.max_bytes <= 0 || o.max_pixels <= 0 || o.max_total_frames <= 0 || o.max_output_bytes <= 0 ||
      !(o.max_decode_seconds > 0) || o.threads < 1) {
    return InvalidArgumentError("video: the decode limits must be positive");
  }
  return OkStatus();
}

Status TooManyFrames(double frames, int64_t limit) {
  return InvalidArgumentError(fmt::format("video: {:.0f} frames exceed the limit of {} frames", frames, limit));
}

Status NoFrames() { return InvalidArgumentError("video: no frame could be decoded (corrupt or truncated data)"); }

// The frame count when the container states none: decode the whole stream once (bounded by
// max_total_frames and the deadline).
Result<int64_t> CountFrames(std::span<const uint8_t> bytes, const VideoReaderOptions& ro, int64_t max_frames) {
  GEMMAD_ASSIGN_OR_RETURN(auto reader, VideoReader::Open(bytes, ro));
  int64_t n = 0;
  while (true) {
    GEMMAD_ASSIGN_OR_RETURN(const AVFrame* f, reader->Next());
    if (f == nullptr) break;
    if (++n > max_frames) return TooManyFrames(static_cast<double>(n), max_frames);
  }
  if (n == 0) return NoFrames();
  return n;
}

}  // namespace

Result<DecodedVideo> DecodeVideo(std::span<const uint8_t> bytes, const VideoDecodeOptions& options) {
  GEMMAD_RETURN_IF_ERROR(CheckOptions(options));
  if (static_cast<uint64_t>(bytes.size()) > static_cast<uint64_t>(options.max_bytes)) {
    return InvalidArgumentError(
        fmt::format("video: {} bytes exceed the limit of {} bytes", bytes.size(), options.max_bytes));
  }
  VideoReaderOptions ro;
  ro.max_pixels = options.max_pixels;
  ro.threads = options.threads;
  ro.time_limit_s = options.max_decode_seconds;
  ro.deadline = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(std::min(options.max_decode_seconds, kMaxTimeLimitS)));
  GEMMAD_ASSIGN_OR_RETURN(auto reader, VideoReader::Open(bytes, ro));

  int64_t total = 0;
  const double reported = reader->reported_frames();
  if (std::isfinite(reported) && reported >= 1) {
    if (reported > static_cast<double>(options.max_total_frames)) return TooManyFrames(reported, options.max_total_frames);
    total = static_cast<int64_t>(reported);
  } else {
    GEMMAD_ASSIGN_OR_RETURN(total, CountFrames(bytes, ro, options.max_total_frames));
  }
  const std::vector<int64_t> indices = SampleFrameIndices(total, options.num_frames);
  // The output bound at the declared size; decoded frames are held to it again below.
  const int64_t frame_bytes = reader->width() * reader->height() * 3;
  if (static_cast<double>(frame_bytes) * static_cast<double>(indices.size()) >
      static_cast<double>(options.max_output_bytes)) {
    return InvalidArgumentError(fmt::format("video: {} frames of {}x{} exceed the output limit of {} bytes",
                                            indices.size(), reader->width(), reader->height(),
                                            options.max_output_bytes));
  }

  DecodedVideo out;
  out.fps = reader->fps();
  out.total_frames = total;
  out.duration_s = out.fps > 0 ? static_cast<double>(total) / out.fps : 0.0;
  FrameToRgb to_rgb(options.rgb_conversion);
  int64_t output_bytes = 0;
  int64_t first_height = 0;
  int64_t first_width = 0;
  size_t next = 0;
  for (int64_t index = 0; next < indices.size(); ++index) {
    GEMMAD_ASSIGN_OR_RETURN(const AVFrame* f, reader->Next());
    if (f == nullptr) break;
    if (index != indices[next]) continue;
    ++next;
    GEMMAD_ASSIGN_OR_RETURN(Image rgb, to_rgb.Convert(*f));
    if (out.frames.empty()) {
      first_height = rgb.height;
      first_width = rgb.width;
    } else if (rgb.height != first_height || rgb.width != first_width) {
      return InvalidArgumentError(fmt::format("video: the frame size changes within the video ({}x{} to {}x{})",
                                              first_width, first_height, rgb.width, rgb.height));
    }
    output_bytes += static_cast<int64_t>(rgb.rgb.size());
    if (output_bytes > options.max_output_bytes) {
      return InvalidArgumentError(
          fmt::format("video: the sampled frames exceed the output limit of {} bytes", options.max_output_bytes));
    }
    out.frames.push_back(RotateClockwise(rgb, reader->rotation_degrees()));
    out.frame_indices.push_back(index);
  }
  if (out.frames.empty()) return NoFrames();
  if (out.frames.size() < indices.size() && reader->damaged()) {
    return InvalidArgumentError(fmt::format("video: truncated or corrupt data (decoded {} of the {} sampled frames)",
                                            out.frames.size(), indices.size()));
  }
  return out;
}

}  // namespace gemmad::mm
