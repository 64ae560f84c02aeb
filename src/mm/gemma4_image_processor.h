// The Gemma 4 image processor (multimodal.md §2.2-2.8; HF Gemma4ImageProcessor, torchvision
// backend): aspect-ratio preserving target size that fills the soft-token budget (it also
// upscales), bicubic antialiased uint8 resize (bit-exact with torch's CPU path), rescale to [0, 1]
// as float32, patchify into (row, col, channel) rows, (x, y) positions and the soft-token count.
// Only the real patches are produced (HF's padding to max_patches rows is left out, §2.7).
// Video frames (§6.1) go through the same steps at a per-frame budget, one target size per video.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "mm/image.h"
#include "mm/resize_bicubic_aa.h"
#include "mm/vision_input.h"

namespace gemmad::mm {

struct ImageProcessorConfig {
  int64_t patch_size = 16;               // p
  int64_t pooling_kernel = 3;            // k
  int64_t default_max_soft_tokens = 280; // B when a request names none
};

// Per-frame budget of video frames (vLLM hard-codes it; HF's video processor default).
inline constexpr int64_t kVideoFrameMaxSoftTokens = 70;
// Largest image side the processor accepts (the resampler's limit).
inline constexpr int64_t kMaxImageSide = kMaxResizeSide;

// Ok for 70, 140, 280, 560 and 1120; otherwise InvalidArgument (field "max_soft_tokens") with
// vLLM's text: "Unsupported max_soft_tokens value: 64. Valid values are (70, 140, 280, 560, 1120)."
Status ValidateMaxSoftTokens(int64_t max_soft_tokens);

// Checks patch_size in [1, 32], pooling_kernel in [1, 4] (so an image never exceeds
// 1120 * 16 * 1024 pixels) and the default budget.
Status ValidateImageProcessorConfig(const ImageProcessorConfig& cfg);

// The resized (height, width), both multiples of k * p, exactly as HF's
// get_aspect_ratio_preserving_size (§2.3, float64): pixel budget B * k² * p²; when one side
// rounds to zero it becomes k * p and the other floor(long / short) * k * p capped at B * k * p.
// Errors: a side < 1 or > kMaxImageSide, non-positive B/p/k, or both sides rounding to zero.
// Pure arithmetic; the budget is not checked against the supported set here.
Result<std::pair<int64_t, int64_t>> TargetSize(int64_t height, int64_t width, int64_t max_soft_tokens,
                                               int64_t patch_size, int64_t pooling_kernel);

// Soft tokens (placeholder rows) an image of this size yields, without processing it:
// (th / (k p)) * (tw / (k p)) <= B. Validates the budget and the config.
Result<int64_t> NumSoftTokens(int64_t height, int64_t width, int64_t max_soft_tokens,
                              const ImageProcessorConfig& cfg = {});

// How 8-bit values become floats. The image processor (and vLLM's video path, which runs every
// frame through it) multiplies by float32(1/255); HF's video processor fuses rescale into
// normalize and divides by 255.0f. The two differ by 1 ulp on 126 of the 256 values.
enum class Rescale { kMultiplyInv255, kDivide255 };

// Resize (unless the target equals the size), rescale, patchify. Errors: invalid budget or config,
// an empty image, rgb not holding height * width * 3 bytes, a side over kMaxImageSide.
Result<std::shared_ptr<VisionPatches>> ProcessImage(const Image& image, int64_t max_soft_tokens,
                                                    const ImageProcessorConfig& cfg = {},
                                                    const ParallelFor& parallel = {},
                                                    Rescale rescale = Rescale::kMultiplyInv255);

// One VisionPatches per frame. The target size comes from the first frame and is used for every
// frame (a frame of another size is resized to it). The default rescale is the image processor's
// (what vLLM serves); Rescale::kDivide255 reproduces HF's Gemma4VideoProcessor bit for bit.
Result<std::vector<std::shared_ptr<VisionPatches>>> ProcessVideoFrames(
    std::span<const Image> frames, int64_t per_frame_max_soft_tokens = kVideoFrameMaxSoftTokens,
    const ImageProcessorConfig& cfg = {}, const ParallelFor& parallel = {},
    Rescale rescale = Rescale::kMultiplyInv255);

}  // namespace gemmad::mm
