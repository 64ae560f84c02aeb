// ExtractMediaParts, CheckMediaCounts (see chat_media.h).
#include "api/chat_media.h"

#include <fmt/format.h>

namespace gemmad::api {
namespace {

// The URL of an image_url/video_url/audio_url payload: {"url": "..."} or a bare string.
std::optional<std::string> UrlOf(const Json& payload) {
  if (payload.is_string()) return payload.get<std::string>();
  if (payload.is_object() && payload.contains("url") && payload["url"].is_string()) {
    return payload["url"].get<std::string>();
  }
  return std::nullopt;
}

struct Form {
  const char* type;   // the part's "type"
  const char* field;  // where its payload sits
  mm::Modality modality;
};

constexpr Form kForms[] = {
    {"image_url", "image_url", mm::Modality::kImage},   {"input_image", "image_url", mm::Modality::kImage},
    {"video_url", "video_url", mm::Modality::kVideo},   {"audio_url", "audio_url", mm::Modality::kAudio},
    {"input_audio", "input_audio", mm::Modality::kAudio},
};

// Forms vLLM knows that gemmad does not take (pre-computed embeddings, Python objects).
constexpr const char* kUnsupported[] = {"image_embeds", "image_pil", "audio_embeds"};

}  // namespace

std::optional<ApiError> ExtractMediaParts(Json* messages, std::vector<MediaPart>* parts) {
  for (size_t i = 0; i < messages->size(); ++i) {
    Json& msg = (*messages)[i];
    auto content_it = msg.find("content");
    if (content_it == msg.end() || !content_it->is_array()) continue;
    size_t erased = 0;  // parts removed so far: locations name the request's own indices
    for (size_t j = 0; j < content_it->size(); ++j) {
      Json& part = (*content_it)[j];
      const size_t original_j = j + erased;
      if (!part.is_object()) continue;
      const std::string loc = fmt::format("messages[{}].content[{}]", i, original_j);
      const std::string type = part.contains("type") && part["type"].is_string() ? part["type"].get<std::string>() : "";
      for (const char* u : kUnsupported) {
        if (type == u) return ApiError::BadRequest(fmt::format("{}: '{}' parts are not supported by gemmad", loc, u), "messages");
      }
      const Form* form = nullptr;
      for (const Form& f : kForms) {
        if (type == f.type || (type.empty() && part.contains(f.field))) form = &f;
      }
      if (form == nullptr) continue;
      auto payload = part.find(form->field);
      if (payload == part.end() || payload->is_null()) {
        if (!type.empty() && payload == part.end()) {
          return ApiError::BadRequest(fmt::format("{}: a '{}' part needs a '{}' field", loc, type, form->field), "messages");
        }
        content_it->erase(content_it->begin() + static_cast<std::ptrdiff_t>(j));  // null payload: skipped
        --j;
        ++erased;
        continue;
      }
      MediaPart mp;
      mp.modality = form->modality;
      mp.location = loc;
      if (std::string_view(form->field) == "input_audio") {
        if (!payload->is_object() || !payload->contains("data") || !(*payload)["data"].is_string()) {
          return ApiError::BadRequest(fmt::format("{}: input_audio needs a base64 'data' string", loc), "messages");
        }
        mp.audio_data = (*payload)["data"].get<std::string>();
        auto format = payload->find("format");
        if (format != payload->end() && !format->is_null() && !format->is_string()) {
          return ApiError::BadRequest(fmt::format("{}: input_audio 'format' must be a string", loc), "messages");
        }
        if (format != payload->end() && format->is_string()) mp.audio_format = format->get<std::string>();
      } else {
        auto url = UrlOf(*payload);
        if (!url) {
          return ApiError::BadRequest(fmt::format("{}: '{}' must be a URL string or {{\"url\": ...}}", loc, form->field),
                                      "messages");
        }
        mp.url = std::move(*url);
      }
      parts->push_back(std::move(mp));
    }
  }
  return std::nullopt;
}

std::optional<ApiError> CheckMediaCounts(const std::vector<MediaPart>& parts,
                                         const std::map<std::string, int64_t>& limits) {
  std::map<std::string, int64_t> counts;
  for (const MediaPart& p : parts) ++counts[std::string(mm::ModalityName(p.modality))];
  for (const auto& [modality, n] : counts) {
    auto it = limits.find(modality);
    if (it != limits.end() && n > it->second) {
      return ApiError::BadRequest(fmt::format("At most {} {}(s) may be provided in one prompt.", it->second, modality),
                                  modality);
    }
  }
  return std::nullopt;
}

}  // namespace gemmad::api
