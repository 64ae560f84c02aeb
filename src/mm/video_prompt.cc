// Gemma 4 video frame timestamps and the per-frame prompt text.
#include "mm/video_prompt.h"

#include <fmt/format.h>

#include <cmath>

namespace gemmad::mm {
namespace {

// Python's float divmod(t, 60) for t >= 0 (Objects/floatobject.c float_divmod): the quotient is
// derived from fmod, not from t / 60, so both parts agree at the boundaries.
void PyDivmod60(double t, double* floordiv, double* mod) {
  constexpr double kW = 60.0;
  double m = std::fmod(t, kW);
  double div = (t - m) / kW;
  if (m == 0.0) m = 0.0;  // +0.0 (copysign(0, 60))
  double q = 0.0;
  if (div != 0.0) {
    q = std::floor(div);
    if (div - q > 0.5) q += 1.0;
  }
  *floordiv = q;
  *mod = m;
}

}  // namespace

std::string FrameTimestamp(int64_t frame_index, double fps) {
  if (!(fps > 0.0) || !std::isfinite(fps)) fps = kFallbackVideoFps;
  double t = static_cast<double>(frame_index) / fps;
  if (!(t >= 0.0) || !std::isfinite(t)) t = 0.0;  // negative indices do not occur; keep it defined
  double minutes = 0.0;
  double seconds = 0.0;
  PyDivmod60(t, &minutes, &seconds);
  // Both are whole numbers here (seconds truncated like Python's int()); "{:02.0f}" prints their
  // exact value, as Python prints int(x), without a cast that could overflow for absurd inputs.
  return fmt::format("{:02.0f}:{:02.0f}", minutes, std::trunc(seconds));
}

std::string FramePrefix(size_t position, std::string_view timestamp) {
  return position == 0 ? fmt::format("{} ", timestamp) : fmt::format(" {} ", timestamp);
}

std::string VideoReplacementText(std::span<const int64_t> frame_indices, double fps, int64_t soft_tokens_per_frame,
                                 std::string_view boi, std::string_view video_token, std::string_view eoi) {
  std::string out;
  for (size_t i = 0; i < frame_indices.size(); ++i) {
    out += FramePrefix(i, FrameTimestamp(frame_indices[i], fps));
    out += boi;
    for (int64_t k = 0; k < soft_tokens_per_frame; ++k) out += video_token;
    out += eoi;
  }
  return out;
}

}  // namespace gemmad::mm
