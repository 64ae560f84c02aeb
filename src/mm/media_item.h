// PrepareImage / PrepareVideo: a media URL of a request to what the engine needs, bounded at
// every step: the bytes (mm/media_source.h), decoded (image_decode.h, video_decode.h), run
// through the Gemma 4 image processor at the request's budget (gemma4_image_processor.h), and
// a content hash of the processed pixels (the prefix cache's key for the item's tokens).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "mm/item.h"
#include "mm/media_source.h"
#include "mm/vision_input.h"

namespace gemmad::mm {

struct VisionMediaOptions {
  MediaSourceOptions source;            // images (fetch_timeout_ms: VLLM_IMAGE_FETCH_TIMEOUT)
  long video_fetch_timeout_ms = 30000;  // VLLM_VIDEO_FETCH_TIMEOUT
  int64_t patch_size = 16;
  int64_t pooling_kernel = 3;
  int64_t image_max_soft_tokens = 280;  // per image (70, 140, 280, 560 or 1120)
  int64_t video_max_soft_tokens = 70;   // per video frame
  int64_t video_num_frames = 32;        // frames sampled from a video
  int64_t max_image_pixels = 89478485;  // decoded image (and frame) size limit
  long video_decode_timeout_ms = 30000;
};

struct PreparedVisual {  // one image or one video frame
  std::shared_ptr<const VisionPatches> patches;
  ContentHash hash;
};

struct PreparedVideo {
  std::vector<PreparedVisual> frames;
  std::vector<std::string> timestamps;  // "mm:ss" per frame
};

Result<PreparedVisual> PrepareImage(std::string_view url, const VisionMediaOptions& options);
Result<PreparedVideo> PrepareVideo(std::string_view url, const VisionMediaOptions& options);

// The 128-bit content hash of processed patches (grid, patch size and every pixel value).
ContentHash HashPatches(Modality modality, const VisionPatches& patches);

}  // namespace gemmad::mm
