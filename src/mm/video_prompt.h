// The text Gemma 4 puts before each video frame in the prompt (multimodal.md §6.1 step 4, §6.2):
// a "mm:ss" timestamp of the frame, "mm:ss " before the first frame and " mm:ss " before every
// later one, each followed by <|image>, the frame's soft tokens and <image|>. Pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace gemmad::mm {

// The fps vLLM and HF assume when a video's metadata has none (`metadata.get("fps") or 24`).
inline constexpr double kFallbackVideoFps = 24.0;

// "mm:ss" for the frame at `frame_index` of a video at `fps` frames per second: t = index / fps,
// mm = int(t // 60), ss = int(t % 60) with Python's float floor-division and modulo, each at
// least two digits, zero-padded ("00:05", "61:01", "100:00"). fps <= 0 or not finite uses 24.
std::string FrameTimestamp(int64_t frame_index, double fps);

// The text before frame `position` (0-based, in prompt order): "mm:ss " for the first frame,
// " mm:ss " for the others (vLLM tokenizes exactly this string per frame).
std::string FramePrefix(size_t position, std::string_view timestamp);

// The whole replacement text of one video placeholder, as HF's processor and vLLM build it:
// for each frame FramePrefix + boi + video_token × soft_tokens_per_frame + eoi.
std::string VideoReplacementText(std::span<const int64_t> frame_indices, double fps, int64_t soft_tokens_per_frame,
                                 std::string_view boi, std::string_view video_token, std::string_view eoi);

}  // namespace gemmad::mm
