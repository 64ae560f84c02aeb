// Gemma 4 image/video-frame preprocessing (see the header; multimodal.md §2, §6.1).
#include "mm/gemma4_image_processor.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace gemmad::mm {
namespace {

constexpr std::array<int64_t, 5> kSupportedSoftTokens = {70, 140, 280, 560, 1120};

Status CheckImage(const Image& image) {
  if (image.height < 1 || image.width < 1) {
    return InvalidArgumentError(fmt::format("image: empty image ({}x{})", image.height, image.width));
  }
  if (image.height > kMaxImageSide || image.width > kMaxImageSide) {
    return InvalidArgumentError(
        fmt::format("image: {}x{} has a side over {} pixels", image.height, image.width, kMaxImageSide));
  }
  if (image.rgb.size() != static_cast<size_t>(image.height * image.width * 3)) {
    return InvalidArgumentError(fmt::format("image: a {}x{} RGB image needs {} bytes, got {}", image.height,
                                            image.width, image.height * image.width * 3, image.rgb.size()));
  }
  return OkStatus();
}

// The 256 float values of a byte, computed as torch does (`uint8_tensor * (1/255)` runs in float32
// with the scalar rounded to float; `normalize(x, 0, 255.0)` divides by 255.0f).
std::array<float, 256> RescaleTable(Rescale rescale) {
  std::array<float, 256> t{};
  const float inv = static_cast<float>(1.0 / 255.0);
  for (int v = 0; v < 256; ++v) {
    t[v] = rescale == Rescale::kMultiplyInv255 ? static_cast<float>(v) * inv : static_cast<float>(v) / 255.0f;
  }
  return t;
}

// image [gh*p, gw*p, 3] -> patches [gh*gw, p*p*3], element (r, c, ch) of patch n at (r*p + c)*3 + ch,
// positions (x, y) = (n % gw, n / gw). A patch row of the image is 3p contiguous bytes.
std::shared_ptr<VisionPatches> Patchify(const Image& image, const ImageProcessorConfig& cfg, Rescale rescale) {
  const std::array<float, 256> table = RescaleTable(rescale);
  const int64_t p = cfg.patch_size;
  auto out = std::make_shared<VisionPatches>();
  out->patch_size = p;
  out->pooling_kernel = cfg.pooling_kernel;
  out->grid_h = image.height / p;
  out->grid_w = image.width / p;
  const int64_t gw = out->grid_w;
  const int64_t n_patches = out->num_patches();
  const int64_t dim = out->patch_dim();
  out->pixels.resize(static_cast<size_t>(n_patches * dim));
  out->positions.resize(static_cast<size_t>(n_patches * 2));
  for (int64_t n = 0; n < n_patches; ++n) {
    const int64_t py = n / gw, px = n % gw;
    float* dst = out->pixels.data() + n * dim;
    for (int64_t r = 0; r < p; ++r) {
      const uint8_t* src = image.rgb.data() + ((py * p + r) * image.width + px * p) * 3;
      for (int64_t k = 0; k < 3 * p; ++k) dst[r * 3 * p + k] = table[src[k]];
    }
    out->positions[2 * n] = static_cast<int32_t>(px);
    out->positions[2 * n + 1] = static_cast<int32_t>(py);
  }
  return out;
}

Result<std::shared_ptr<VisionPatches>> ResizeAndPatchify(const Image& image, std::pair<int64_t, int64_t> target,
                                                         const ImageProcessorConfig& cfg, const ParallelFor& parallel,
                                                         Rescale rescale) {
  if (target.first == image.height && target.second == image.width) return Patchify(image, cfg, rescale);
  GEMMAD_ASSIGN_OR_RETURN(Image resized, ResizeBicubicAntialias(image, target.first, target.second, parallel));
  return Patchify(resized, cfg, rescale);
}

}  // namespace

Status ValidateMaxSoftTokens(int64_t max_soft_tokens) {
  for (int64_t v : kSupportedSoftTokens) {
    if (v == max_soft_tokens) return OkStatus();
  }
  return Status(StatusCode::kInvalidArgument,
                fmt::format("Unsupported max_soft_tokens value: {}. Valid values are (70, 140, 280, 560, 1120).",
                            max_soft_tokens),
                "max_soft_tokens");
}

Status ValidateImageProcessorConfig(const ImageProcessorConfig& cfg) {
  if (cfg.patch_size < 1 || cfg.patch_size > 32) {
    return InvalidArgumentError(fmt::format("image processor: patch_size {} is outside [1, 32]", cfg.patch_size));
  }
  if (cfg.pooling_kernel < 1 || cfg.pooling_kernel > 4) {
    return InvalidArgumentError(
        fmt::format("image processor: pooling_kernel {} is outside [1, 4]", cfg.pooling_kernel));
  }
  return ValidateMaxSoftTokens(cfg.default_max_soft_tokens);
}

Result<std::pair<int64_t, int64_t>> TargetSize(int64_t height, int64_t width, int64_t max_soft_tokens,
                                               int64_t patch_size, int64_t pooling_kernel) {
  if (height < 1 || width < 1 || height > kMaxImageSide || width > kMaxImageSide) {
    return InvalidArgumentError(
        fmt::format("image: size {}x{} is outside [1, {}] per side", height, width, kMaxImageSide));
  }
  if (max_soft_tokens < 1 || max_soft_tokens > 1'000'000 || patch_size < 1 || patch_size > 1024 ||
      pooling_kernel < 1 || pooling_kernel > 64) {
    return InvalidArgumentError(fmt::format("image: bad budget {}, patch size {} or pooling kernel {}",
                                            max_soft_tokens, patch_size, pooling_kernel));
  }
  const int64_t max_patches = max_soft_tokens * pooling_kernel * pooling_kernel;
  const int64_t target_px = max_patches * patch_size * patch_size;
  // Sides <= 2^22 keep height * width exact in a double, so this is Python's int / int.
  const double factor = std::sqrt(static_cast<double>(target_px) / static_cast<double>(height * width));
  const int64_t side_mult = pooling_kernel * patch_size;
  const double unit = static_cast<double>(side_mult);
  int64_t th = static_cast<int64_t>(std::floor(factor * static_cast<double>(height) / unit)) * side_mult;
  int64_t tw = static_cast<int64_t>(std::floor(factor * static_cast<double>(width) / unit)) * side_mult;
  if (th == 0 && tw == 0) {
    return InvalidArgumentError(fmt::format(
        "Attempting to resize {}x{} to a 0 x 0 image. Resized height should be divisible by "
        "`pooling_kernel_size * patch_size`={}.",
        height, width, side_mult));
  }
  const int64_t max_side = (max_patches / (pooling_kernel * pooling_kernel)) * side_mult;
  if (th == 0) {
    th = side_mult;
    const double ratio = std::floor(static_cast<double>(width) / static_cast<double>(height));
    tw = std::min(static_cast<int64_t>(ratio) * side_mult, max_side);
  } else if (tw == 0) {
    tw = side_mult;
    const double ratio = std::floor(static_cast<double>(height) / static_cast<double>(width));
    th = std::min(static_cast<int64_t>(ratio) * side_mult, max_side);
  }
  if (th * tw > target_px) {
    return InvalidArgumentError(fmt::format("Resizing [{}x{}] to [{}x{}] but this exceeds {} patches with patch_size {}",
                                            height, width, th, tw, max_patches, patch_size));
  }
  return std::make_pair(th, tw);
}

Result<int64_t> NumSoftTokens(int64_t height, int64_t width, int64_t max_soft_tokens,
                              const ImageProcessorConfig& cfg) {
  GEMMAD_RETURN_IF_ERROR(ValidateMaxSoftTokens(max_soft_tokens));
  GEMMAD_RETURN_IF_ERROR(ValidateImageProcessorConfig(cfg));
  GEMMAD_ASSIGN_OR_RETURN(auto target, TargetSize(height, width, max_soft_tokens, cfg.patch_size, cfg.pooling_kernel));
  const int64_t unit = cfg.patch_size * cfg.pooling_kernel;
  return (target.first / unit) * (target.second / unit);
}

Result<std::shared_ptr<VisionPatches>> ProcessImage(const Image& image, int64_t max_soft_tokens,
                                                    const ImageProcessorConfig& cfg, const ParallelFor& parallel,
                                                    Rescale rescale) {
  GEMMAD_RETURN_IF_ERROR(ValidateMaxSoftTokens(max_soft_tokens));
  GEMMAD_RETURN_IF_ERROR(ValidateImageProcessorConfig(cfg));
  GEMMAD_RETURN_IF_ERROR(CheckImage(image));
  GEMMAD_ASSIGN_OR_RETURN(auto target,
                          TargetSize(image.height, image.width, max_soft_tokens, cfg.patch_size, cfg.pooling_kernel));
  return ResizeAndPatchify(image, target, cfg, parallel, rescale);
}

Result<std::vector<std::shared_ptr<VisionPatches>>> ProcessVideoFrames(std::span<const Image> frames,
                                                                       int64_t per_frame_max_soft_tokens,
                                                                       const ImageProcessorConfig& cfg,
                                                                       const ParallelFor& parallel, Rescale rescale) {
  GEMMAD_RETURN_IF_ERROR(ValidateMaxSoftTokens(per_frame_max_soft_tokens));
  GEMMAD_RETURN_IF_ERROR(ValidateImageProcessorConfig(cfg));
  if (frames.empty()) return InvalidArgumentError("video: no frames");
  for (size_t i = 0; i < frames.size(); ++i) {
    if (Status s = CheckImage(frames[i]); !s.ok()) return s.WithPrefix(fmt::format("video frame {}", i));
  }
  GEMMAD_ASSIGN_OR_RETURN(auto target, TargetSize(frames[0].height, frames[0].width, per_frame_max_soft_tokens,
                                                  cfg.patch_size, cfg.pooling_kernel));
  std::vector<std::shared_ptr<VisionPatches>> out;
  out.reserve(frames.size());
  for (const Image& frame : frames) {
    GEMMAD_ASSIGN_OR_RETURN(auto patches, ResizeAndPatchify(frame, target, cfg, parallel, rescale));
    out.push_back(std::move(patches));
  }
  return out;
}

}  // namespace gemmad::mm
