// MediaServing: what the chat handler needs to accept images, videos and audio — which
// modalities the loaded model encodes, the per-prompt limits (--limit-mm-per-prompt), the media
// options (sources, budgets from --mm-processor-kwargs) and the Gemma 4 media tokens. Built by `serve`.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "mm/audio_item.h"
#include "mm/media_item.h"

namespace gemmad::api {

struct MediaServing {
  bool image = false;  // the engine encodes images (and video frames, which are images)
  bool video = false;
  bool audio = false;
  // Why images and videos are refused when `image` is false.
  std::string no_vision_reason = "the model has no vision encoder";
  // The checkpoint has an audio tower (E2B/E4B). Audio sent to one without gets vLLM's error,
  // which names `model_name` (the served name), before any limit is checked.
  bool audio_tower = false;
  std::string model_name;
  std::map<std::string, int64_t> limit_per_prompt;  // --limit-mm-per-prompt; absent: unlimited
  mm::VisionMediaOptions vision;                    // budgets here are the server defaults
  mm::AudioMediaOptions audio_options;              // sources as for images, VLLM_AUDIO_FETCH_TIMEOUT
  // The context length: media whose tokens alone exceed it are refused as soon as that is known,
  // so a request's preprocessed media are bounded (≈ 28 KB of pixels per soft token). 0: no bound.
  int64_t max_model_len = 0;
  int64_t max_video_frames = 128;  // the most frames a request may ask for (media_io_kwargs)
  // The largest upload the audio routes take (vLLM's VLLM_MAX_AUDIO_CLIP_FILESIZE_MB, 25 MB).
  int64_t max_audio_clip_bytes = int64_t{25} << 20;
  bool bidirectional_vision = false;  // 26B-A4B/31B: each image's (frame's) tokens are one block
  // Gemma 4 media tokens (ids as the tokenizer encodes the strings below).
  int32_t image_token_id = 258880;   // "<|image|>"
  int32_t video_token_id = 258884;   // "<|video|>"
  int32_t audio_token_id = 258881;   // "<|audio|>"
};

inline constexpr const char* kImagePlaceholder = "<|image|>";
inline constexpr const char* kVideoPlaceholder = "<|video|>";
inline constexpr const char* kAudioPlaceholder = "<|audio|>";
inline constexpr const char* kBeginImage = "<|image>";
inline constexpr const char* kEndImage = "<image|>";
inline constexpr const char* kBeginAudio = "<|audio>";
inline constexpr const char* kEndAudio = "<audio|>";

}  // namespace gemmad::api
