// DecodeVideo: a video file (bytes in memory) to the frames Gemma 4 sees, sampled the way vLLM's
// default video loader samples them (docs/media.md "Video", multimodal.md §6): FFmpeg's
// libraries decode the first video stream in order, `num_frames` indices are spread uniformly
// over the frame count (video_sampling.h), only those frames are converted to RGB
// (video_frame_rgb.h; by default exactly as OpenCV converts) and turned by the container's rotation as OpenCV does. Fewer frames than
// asked keeps every frame. The fps, frame count and duration are the metadata vLLM passes on
// (the timestamps in the prompt come from frame_indices and fps, video_prompt.h).
//
// Every bad input is an InvalidArgument "video: ..." (one line): empty, not a video or an
// unsupported container, no video stream, unsupported codec, truncated or corrupt data, over a
// limit below (size, frame size, frame count, output size) or decoding past the time limit.
// Limits are checked before the memory they bound is allocated.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"
#include "mm/image.h"
#include "mm/video_frame_rgb.h"
#include "mm/video_sampling.h"

namespace gemmad::mm {

struct VideoDecodeOptions {
  // Frames to sample (vLLM VideoMediaIO's default 32); <= 0 keeps every frame (vLLM's -1).
  int64_t num_frames = kDefaultVideoNumFrames;
  int64_t max_bytes = int64_t{512} << 20;      // the encoded file
  int64_t max_pixels = int64_t{4096} * 4096;   // width * height of a frame
  int64_t max_total_frames = 216000;           // frames in the video (1 hour at 60 fps)
  int64_t max_output_bytes = int64_t{1} << 30; // the sampled RGB frames together
  double max_decode_seconds = 60.0;            // wall-clock time for the whole call
  int threads = 1;                             // decoder threads
  // How YUV becomes RGB (video_frame_rgb.h): like vLLM's OpenCV loader, or interpolated chroma.
  VideoRgbConversion rgb_conversion = VideoRgbConversion::kOpenCv;
};

struct DecodedVideo {
  std::vector<Image> frames;           // the sampled frames, in order
  std::vector<int64_t> frame_indices;  // each frame's index in the stream (0-based decode order)
  double fps = 0;            // OpenCV's CAP_PROP_FPS; 0 when unknown (timestamps then use 24)
  int64_t total_frames = 0;  // OpenCV's CAP_PROP_FRAME_COUNT, or counted by decoding when unknown
  double duration_s = 0;     // total_frames / fps like vLLM's metadata; 0 when the fps is unknown
};

Result<DecodedVideo> DecodeVideo(std::span<const uint8_t> bytes, const VideoDecodeOptions& options = {});

}  // namespace gemmad::mm
