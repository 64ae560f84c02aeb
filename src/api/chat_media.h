// Media parts of chat messages, the forms vLLM accepts (chat-format and api specs): `image_url`
// ({"url": ...} or a bare string), `input_image`, `video_url`, `audio_url`, `input_audio`, and the
// untyped `{"image_url": ...}` form. ExtractMediaParts lists them in prompt order and rewrites each
// into the `{"type": "image" | "video" | "audio"}` item chat templates expect, so the template
// writes one placeholder per part. Null payloads are skipped (vLLM does the same).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/request_fields.h"
#include "mm/item.h"

namespace gemmad::api {

struct MediaPart {
  mm::Modality modality = mm::Modality::kImage;
  std::string url;            // http(s), data: or file:// ("" for input_audio)
  std::string audio_data;     // input_audio: base64 payload
  std::string audio_format;   // input_audio: "wav", "mp3", ...
  std::string location;       // "messages[i].content[j]", for errors
};

// Rewrites `messages` (already validated as an array of objects) in place.
std::optional<ApiError> ExtractMediaParts(Json* messages, std::vector<MediaPart>* parts);

// --limit-mm-per-prompt: absent modality = no limit. vLLM's text: "At most N image(s) may be
// provided in one prompt."
std::optional<ApiError> CheckMediaCounts(const std::vector<MediaPart>& parts,
                                         const std::map<std::string, int64_t>& limits);

}  // namespace gemmad::api
