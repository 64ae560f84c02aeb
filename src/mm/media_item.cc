// PrepareImage, PrepareVideo, HashPatches (see media_item.h).
#include "mm/media_item.h"

#include <fmt/format.h>

#include <cstring>

#include "io/base64.h"
#include "mm/content_hash.h"
#include "mm/gemma4_image_processor.h"
#include "mm/image_decode.h"
#include "mm/video_decode.h"
#include "mm/video_prompt.h"

namespace gemmad::mm {
namespace {

ImageDecodeLimits DecodeLimits(const VisionMediaOptions& o) {
  ImageDecodeLimits l;
  l.max_pixels = o.max_image_pixels;
  l.max_bytes = static_cast<int64_t>(o.source.max_bytes);
  return l;
}

ImageProcessorConfig ProcessorConfig(const VisionMediaOptions& o) {
  ImageProcessorConfig c;
  c.patch_size = o.patch_size;
  c.pooling_kernel = o.pooling_kernel;
  return c;
}

// A video sent as frames: "data:video/jpeg;base64,<jpeg 1>,<jpeg 2>,..." (vLLM's form).
bool IsJpegFrameList(std::string_view url) {
  constexpr std::string_view kPrefix = "data:video/jpeg;base64,";
  if (url.size() < kPrefix.size()) return false;
  for (size_t i = 0; i < kPrefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(url[i])) != kPrefix[i]) return false;
  }
  return true;
}

Result<DecodedVideo> DecodeJpegFrames(std::string_view url, const VisionMediaOptions& o) {
  std::string_view payload = url.substr(std::strlen("data:video/jpeg;base64,"));
  if (payload.size() / 4 * 3 > o.source.max_bytes + 2) {
    return ResourceExhaustedError(fmt::format("the video's frames hold more than {} bytes", o.source.max_bytes));
  }
  DecodedVideo video;
  video.fps = 0;  // unknown: timestamps use the Gemma 4 default of 24 fps
  int64_t index = 0;
  while (!payload.empty()) {
    size_t comma = payload.find(',');
    std::string_view chunk = payload.substr(0, comma);
    payload = comma == std::string_view::npos ? std::string_view() : payload.substr(comma + 1);
    if (index >= o.video_num_frames) {
      return InvalidArgumentError(fmt::format("the video has more than {} frames", o.video_num_frames));
    }
    auto bytes = io::DecodeBase64(chunk);
    if (!bytes.ok()) return InvalidArgumentError(fmt::format("frame {}: {}", index, bytes.status().message()));
    auto image = DecodeImage(*bytes, DecodeLimits(o));
    if (!image.ok()) return InvalidArgumentError(fmt::format("frame {}: {}", index, image.status().message()));
    video.frames.push_back(std::move(*image));
    video.frame_indices.push_back(index++);
  }
  if (video.frames.empty()) return InvalidArgumentError("the video has no frames");
  video.total_frames = index;
  return video;
}

}  // namespace

ContentHash HashPatches(Modality modality, const VisionPatches& p) {
  // The pixels are hashed where they are (no copy), then with the grid facts.
  return HashFloatContent(fmt::format("{}:{}x{}:p{}:k{}:", ModalityName(modality), p.grid_h, p.grid_w, p.patch_size,
                                      p.pooling_kernel),
                          p.pixels);
}

Result<PreparedVisual> PrepareImage(std::string_view url, const VisionMediaOptions& o) {
  GEMMAD_ASSIGN_OR_RETURN(MediaBytes bytes, LoadMedia(url, o.source));
  GEMMAD_ASSIGN_OR_RETURN(Image image, DecodeImage(bytes.bytes, DecodeLimits(o)));
  GEMMAD_ASSIGN_OR_RETURN(auto patches, ProcessImage(image, o.image_max_soft_tokens, ProcessorConfig(o)));
  PreparedVisual out;
  out.hash = HashPatches(Modality::kImage, *patches);
  out.patches = std::move(patches);
  return out;
}

Result<PreparedVideo> PrepareVideo(std::string_view url, const VisionMediaOptions& o) {
  DecodedVideo video;
  if (IsJpegFrameList(url)) {
    GEMMAD_ASSIGN_OR_RETURN(video, DecodeJpegFrames(url, o));
  } else {
    MediaSourceOptions source = o.source;
    source.fetch_timeout_ms = o.video_fetch_timeout_ms;
    GEMMAD_ASSIGN_OR_RETURN(MediaBytes bytes, LoadMedia(url, source));
    VideoDecodeOptions vo;
    vo.num_frames = o.video_num_frames;
    vo.max_bytes = static_cast<int64_t>(o.source.max_bytes);
    vo.max_pixels = o.max_image_pixels;
    vo.max_decode_seconds = static_cast<double>(o.video_decode_timeout_ms) / 1000.0;
    GEMMAD_ASSIGN_OR_RETURN(video, DecodeVideo(bytes.bytes, vo));
  }
  GEMMAD_ASSIGN_OR_RETURN(auto frames, ProcessVideoFrames(video.frames, o.video_max_soft_tokens, ProcessorConfig(o)));
  PreparedVideo out;
  for (size_t f = 0; f < frames.size(); ++f) {
    PreparedVisual v;
    v.hash = HashPatches(Modality::kVideo, *frames[f]);
    v.patches = std::move(frames[f]);
    out.frames.push_back(std::move(v));
    out.timestamps.push_back(FrameTimestamp(video.frame_indices[f], video.fps));
  }
  return out;
}

}  // namespace gemmad::mm
