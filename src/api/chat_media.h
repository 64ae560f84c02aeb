// Media parts of chat messages, the forms vLLM accepts (chat-format and api specs): `image_url`
// ({"url": ...} or a bare string), `input_image`, `video_url`, `audio_url`, `input_audio`, and the
// untyped `{"image_url": ...}` form. ExtractMediaParts lists them in prompt order (the template's
// normaliser, template/chat_normalize.cc, turns each into the `{"type": "image" | ...}` item the
// chat template writes one placeholder for). Parts with a null payload are removed: vLLM skips them.
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

// `messages`: the request's messages; null-payload media parts are erased from it.
std::optional<ApiError> ExtractMediaParts(Json* messages, std::vector<MediaPart>* parts);

// --limit-mm-per-prompt: absent modality = no limit. vLLM's text: "At most N image(s) may be
// provided in one prompt."
std::optional<ApiError> CheckMediaCounts(const std::vector<MediaPart>& parts,
                                         const std::map<std::string, int64_t>& limits);

}  // namespace gemmad::api
