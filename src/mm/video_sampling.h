// Which frames of a video are kept, and how many frames a video reports, the way vLLM's default
// video loader decides it (docs/media.md "Video"; multimodal.md §6.2). Pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace gemmad::mm {

// The frame count vLLM's loader asks for when the request names none (VideoMediaIO num_frames).
inline constexpr int64_t kDefaultVideoNumFrames = 32;

// The indices of the frames to keep out of `total_frames` (vLLM VideoBackend's
// compute_frames_index_to_sample without an fps target): n = min(num_frames, total_frames), or
// total_frames when num_frames <= 0 (vLLM's -1, "all frames"); when n == total_frames every
// frame 0..total-1, else np.linspace(0, total - 1, n, dtype=int): floor(i * ((total-1) / (n-1)))
// in double precision for i < n-1 and exactly total - 1 last. Empty when total_frames <= 0.
std::vector<int64_t> SampleFrameIndices(int64_t total_frames, int64_t num_frames);

// What OpenCV's FFmpeg capture reports as CAP_PROP_FRAME_COUNT (and so vLLM's total_frames):
// the stream's frame count when the container states one (nb_frames != 0), otherwise
// floor(duration_s * fps + 0.5). Returned as a double so that the caller can bound it before
// converting (a hostile header can make it huge, negative or NaN).
double ReportedFrameCount(int64_t nb_frames, double duration_s, double fps);

}  // namespace gemmad::mm
