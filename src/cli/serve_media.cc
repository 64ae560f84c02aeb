// MakeMediaServing (see serve_media.h).
#include "cli/serve_media.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gemmad::cli {
namespace {

bool Encodes(const engine::EngineLimits& limits, mm::Modality m) {
  return std::find(limits.modalities.begin(), limits.modalities.end(), m) != limits.modalities.end();
}

// --mm-processor-kwargs max_soft_tokens (top level, then images_kwargs), vLLM's values only.
Result<int64_t> ServerBudget(const nlohmann::ordered_json& kwargs, int64_t fallback) {
  if (!kwargs.is_object()) return fallback;
  const nlohmann::ordered_json* v = nullptr;
  if (kwargs.contains("max_soft_tokens") && !kwargs["max_soft_tokens"].is_null()) {
    v = &kwargs["max_soft_tokens"];
  } else if (kwargs.contains("images_kwargs") && kwargs["images_kwargs"].is_object() &&
             kwargs["images_kwargs"].contains("max_soft_tokens")) {
    v = &kwargs["images_kwargs"]["max_soft_tokens"];
  }
  if (v == nullptr) return fallback;
  for (int64_t b : {70, 140, 280, 560, 1120}) {
    if (v->is_number_integer() && v->get<int64_t>() == b) return b;
  }
  return InvalidArgumentError(fmt::format(
      "--mm-processor-kwargs: Unsupported max_soft_tokens value: {}. Valid values are (70, 140, 280, 560, 1120).",
      v->dump()));
}

}  // namespace

Result<api::MediaServing> MakeMediaServing(const ServeOptions& o, const engine::EngineLimits& limits,
                                           const VisionFacts& vision) {
  api::MediaServing m;
  m.image = Encodes(limits, mm::Modality::kImage);
  m.video = Encodes(limits, mm::Modality::kVideo);
  m.audio = Encodes(limits, mm::Modality::kAudio);
  m.limit_per_prompt = o.limit_mm_per_prompt;
  if (o.language_model_only) {
    // vLLM sets every modality's limit to 0, so media get its "At most 0 image(s) ..." error.
    m.limit_per_prompt = {{"image", 0}, {"video", 0}, {"audio", 0}};
    m.no_vision_reason = "the server runs with --language-model-only";
  } else if (!vision.loaded) {
    m.no_vision_reason = "the model has no vision encoder";
  }
  GEMMAD_ASSIGN_OR_RETURN(m.vision.image_max_soft_tokens, ServerBudget(o.mm_processor_kwargs, vision.default_max_soft_tokens));
  m.vision.patch_size = vision.patch_size;
  m.vision.pooling_kernel = vision.pooling_kernel;
  m.vision.source.allowed_local_media_path = o.allowed_local_media_path;
  m.vision.source.allowed_media_domains = o.allowed_media_domains;
  m.vision.source.allow_private_addresses = o.allow_private_media_addresses;
  m.vision.source.max_bytes = static_cast<uint64_t>(o.max_media_bytes);
  m.vision.source.fetch_timeout_ms = std::lround(o.image_fetch_timeout_s * 1000);
  m.vision.video_fetch_timeout_ms = std::lround(o.video_fetch_timeout_s * 1000);
  m.bidirectional_vision = vision.bidirectional;
  m.max_model_len = limits.max_model_len;
  m.image_token_id = vision.image_token_id;
  m.video_token_id = vision.video_token_id;
  return m;
}

}  // namespace gemmad::cli
