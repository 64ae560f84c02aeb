// MakeMediaServing (see serve_media.h).
#include "cli/serve_media.h"

#include <algorithm>
#include <cmath>

#include "api/media_prompt.h"

namespace gemmad::cli {
namespace {

bool Encodes(const engine::EngineLimits& limits, mm::Modality m) {
  return std::find(limits.modalities.begin(), limits.modalities.end(), m) != limits.modalities.end();
}

}  // namespace

Result<api::MediaServing> MakeMediaServing(const ServeOptions& o, const engine::EngineLimits& limits,
                                           const VisionFacts& vision, const AudioFacts& audio) {
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
  m.vision.image_max_soft_tokens = vision.default_max_soft_tokens;
  if (auto e = api::ReadMaxSoftTokens(&o.mm_processor_kwargs, &m.vision.image_max_soft_tokens)) {
    return InvalidArgumentError("--mm-processor-kwargs: " + e->status.message());
  }
  m.vision.patch_size = vision.patch_size;
  m.vision.pooling_kernel = vision.pooling_kernel;
  m.vision.source.allowed_local_media_path = o.allowed_local_media_path;
  m.vision.source.allowed_media_domains = o.allowed_media_domains;
  m.vision.source.allow_private_addresses = o.allow_private_media_addresses;
  m.vision.source.max_bytes = static_cast<uint64_t>(o.max_media_bytes);
  m.vision.source.fetch_timeout_ms = std::lround(o.image_fetch_timeout_s * 1000);
  m.vision.video_fetch_timeout_ms = std::lround(o.video_fetch_timeout_s * 1000);
  m.audio_options.source = m.vision.source;
  m.audio_options.source.fetch_timeout_ms = std::lround(o.audio_fetch_timeout_s * 1000);
  m.audio_options.num_mels = audio.num_mels;
  m.audio_tower = audio.tower;
  m.max_audio_clip_bytes = std::llround(o.max_audio_clip_filesize_mb * 1024 * 1024);
  m.audio_token_id = audio.audio_token_id;
  if (!o.served_model_names.empty()) m.model_name = o.served_model_names.front();
  m.bidirectional_vision = vision.bidirectional;
  m.max_model_len = limits.max_model_len;
  m.image_token_id = vision.image_token_id;
  m.video_token_id = vision.video_token_id;
  return m;
}

}  // namespace gemmad::cli
