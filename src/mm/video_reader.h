// VideoReader: FFmpeg (libavformat + libavcodec) reading one video stream from bytes in memory,
// frame by frame in presentation order, with the stream facts vLLM's OpenCV loader reports (fps,
// frame count, rotation). Used by DecodeVideo (video_decode.h); not a public API of the module.
//
// Safety: the bytes are read through a custom AVIOContext (no temp files); the demuxer may open
// nothing else (io_open is refused, so playlists and references cannot reach files or the
// network); only the demuxers and decoders listed in video_reader.cc are allowed; the frame size
// is bounded before the decoder opens and inside it (AVCodecContext::max_pixels); a deadline is
// checked in the read callback, libavformat's interrupt callback and every Next(). libav's log
// output is silenced (a process-wide log callback that prints nothing; nothing reaches stderr).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>

#include "base/result.h"

struct AVFrame;

namespace gemmad::mm {

struct VideoReaderOptions {
  int64_t max_pixels = 0;  // width * height bound, checked before decoding (> 0)
  int threads = 1;         // decoder threads
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  double time_limit_s = 0;  // only for the message when the deadline passes
};

class VideoReader {
 public:
  // Opens the container, picks the first video stream that is not an attached picture (as
  // OpenCV does), checks its codec and size and opens its decoder. Errors are InvalidArgument
  // ("video: ...").
  static Result<std::unique_ptr<VideoReader>> Open(std::span<const uint8_t> bytes, const VideoReaderOptions& options);
  ~VideoReader();
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;

  // The next decoded frame (owned by the reader, valid until the next call), nullptr at the end
  // of the stream, or an error (deadline passed, a frame over the pixel bound).
  Result<const AVFrame*> Next();

  // The stream's frame size as the container and stream probe report it (before rotation).
  int64_t width() const { return width_; }
  int64_t height() const { return height_; }
  // CAP_PROP_FPS: the stream's average frame rate, else 1 / time base; 0 when neither is usable.
  double fps() const { return fps_; }
  // CAP_PROP_FRAME_COUNT before rounding to an integer (video_sampling.h ReportedFrameCount);
  // <= 0 or not finite when the container tells nothing usable.
  double reported_frames() const { return reported_frames_; }
  // Clockwise rotation OpenCV applies from the display matrix: 0, 90, 180 or 270.
  int rotation_degrees() const { return rotation_; }
  // True once the demuxer or decoder met damaged data while reading frames (a short packet, a
  // read or decode error, or a warning libav logged, such as a file that ends mid-element).
  bool damaged() const { return damaged_ || log_problems_ > 0; }

 private:
  struct State;
  explicit VideoReader(std::unique_ptr<State> state);
  Status DeadlineError() const;

  std::unique_ptr<State> s_;
  double time_limit_s_ = 0;
  int64_t width_ = 0;
  int64_t height_ = 0;
  double fps_ = 0;
  double reported_frames_ = 0;
  int rotation_ = 0;
  bool damaged_ = false;
  int log_problems_ = 0;
};

}  // namespace gemmad::mm
