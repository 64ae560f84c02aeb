// The media of one chat request from parts to engine items: LoadMedia fetches, decodes and
// preprocesses each part (in prompt order, bounded by the per-prompt limits checked before);
// ExpandPlaceholders rewrites the rendered prompt as the Gemma 4 processor does (an image's
// single "<|image|>" becomes "<|image>" + N × "<|image|>" + "<image|>"; a video's "<|video|>"
// becomes one "mm:ss <|image>" + n × "<|video|>" + "<image|>" run per frame, joined by spaces;
// an audio clip's "<|audio|>" becomes "<|audio>" + M × "<|audio|>" + "<audio|>");
// BuildItems finds those runs in the token ids and makes one mm::Item per image, frame or clip.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/request_fields.h"
#include "api/chat_media.h"
#include "api/media_serving.h"
#include "mm/item.h"
#include "mm/media_item.h"

namespace gemmad::api {

struct LoadedMedia {
  std::vector<mm::PreparedVisual> images;  // image parts, in order
  std::vector<mm::PreparedVideo> videos;   // video parts, in order
  std::vector<mm::PreparedAudio> audios;   // audio parts, in order
};

// `mm_processor_kwargs` of the request (may be null): {"max_soft_tokens": B} or
// {"images_kwargs": {"max_soft_tokens": B}} overrides the server's image budget.
// `media_io_kwargs` (may be null): {"video": {"num_frames": N}} samples N frames (1..max_video_frames).
// Audio parts for a checkpoint without an audio tower: vLLM's error (checked before the limits).
std::optional<ApiError> CheckAudioTower(const MediaServing& serving, const std::vector<MediaPart>& parts);

std::optional<ApiError> LoadMedia(const MediaServing& serving, const std::vector<MediaPart>& parts,
                                  const Json* mm_processor_kwargs, const Json* media_io_kwargs,
                                  const std::function<bool()>& client_gone, LoadedMedia* out);

std::optional<ApiError> ExpandPlaceholders(const LoadedMedia& media, std::string* prompt_text);

std::optional<ApiError> BuildItems(const MediaServing& serving, const LoadedMedia& media,
                                   const std::vector<int32_t>& prompt_ids, std::vector<mm::Item>* items);

// Checks a max_soft_tokens value: 70, 140, 280, 560 or 1120 (vLLM's message otherwise).
std::optional<ApiError> CheckMaxSoftTokens(const Json& value);
// The budget of mm_processor_kwargs (may be null): its max_soft_tokens, else
// images_kwargs.max_soft_tokens (vLLM's order); *budget is left alone when it names none.
std::optional<ApiError> ReadMaxSoftTokens(const Json* kwargs, int64_t* budget);

}  // namespace gemmad::api
