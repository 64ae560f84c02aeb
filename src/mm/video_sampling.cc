// Frame sampling and frame counts as vLLM's OpenCV-based loader computes them.
#include "mm/video_sampling.h"

#include <algorithm>
#include <cmath>

namespace gemmad::mm {

std::vector<int64_t> SampleFrameIndices(int64_t total_frames, int64_t num_frames) {
  std::vector<int64_t> out;
  if (total_frames <= 0) return out;
  const int64_t n = num_frames > 0 ? std::min(num_frames, total_frames) : total_frames;
  out.resize(static_cast<size_t>(n));
  if (n == total_frames) {
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = i;
    return out;
  }
  // n < total_frames here, so n - 1 < total_frames - 1; n == 1 yields [0] like numpy (no step).
  out[0] = 0;
  if (n == 1) return out;
  const double step = static_cast<double>(total_frames - 1) / static_cast<double>(n - 1);
  for (int64_t i = 1; i + 1 < n; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int64_t>(std::floor(static_cast<double>(i) * step));
  }
  out[static_cast<size_t>(n - 1)] = total_frames - 1;
  return out;
}

double ReportedFrameCount(int64_t nb_frames, double duration_s, double fps) {
  if (nb_frames != 0) return static_cast<double>(nb_frames);
  return std::floor(duration_s * fps + 0.5);
}

}  // namespace gemmad::mm
