// LoadMedia, ExpandPlaceholders, BuildItems (see media_prompt.h).
#include "api/media_prompt.h"

#include <fmt/format.h>

#include <algorithm>

#include "io/base64.h"
#include "mm/gemma4_image_processor.h"
#include "mm/video_prompt.h"

namespace gemmad::api {
namespace {

std::string Repeat(const char* s, int64_t n) {
  std::string out;
  out.reserve(static_cast<size_t>(n) * 10);
  for (int64_t i = 0; i < n; ++i) out += s;
  return out;
}

// Replaces the k-th occurrence of `placeholder` with replacement(k); returns how many there were.
size_t ReplaceEach(std::string* text, const std::string& placeholder,
                   const std::function<std::string(size_t)>& replacement, size_t limit) {
  std::string out;
  size_t count = 0;
  size_t pos = 0;
  for (;;) {
    size_t hit = text->find(placeholder, pos);
    if (hit == std::string::npos) break;
    out.append(*text, pos, hit - pos);
    out += count < limit ? replacement(count) : placeholder;
    ++count;
    pos = hit + placeholder.size();
  }
  out.append(*text, pos, std::string::npos);
  *text = std::move(out);
  return count;
}

// Runs of `token` in ids, in order: (offset, length).
std::vector<std::pair<int64_t, int64_t>> Runs(const std::vector<int32_t>& ids, int32_t token) {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (size_t i = 0; i < ids.size();) {
    if (ids[i] != token) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < ids.size() && ids[j] == token) ++j;
    runs.emplace_back(static_cast<int64_t>(i), static_cast<int64_t>(j - i));
    i = j;
  }
  return runs;
}

}  // namespace

std::optional<ApiError> CheckMaxSoftTokens(const Json& value) {
  const Status s = value.is_number_integer() ? mm::ValidateMaxSoftTokens(value.get<int64_t>())
                                             : mm::ValidateMaxSoftTokens(0);
  if (s.ok()) return std::nullopt;
  return ApiError::BadRequest(fmt::format("Unsupported max_soft_tokens value: {}. Valid values are (70, 140, 280, 560, "
                                          "1120).",
                                          value.dump()),
                              "mm_processor_kwargs");
}

std::optional<ApiError> ReadMaxSoftTokens(const Json* kwargs, int64_t* budget) {
  if (kwargs == nullptr || !kwargs->is_object()) return std::nullopt;
  const Json* v = nullptr;
  if (auto it = kwargs->find("max_soft_tokens"); it != kwargs->end() && !it->is_null()) {
    v = &*it;
  } else if (auto ik = kwargs->find("images_kwargs"); ik != kwargs->end() && ik->is_object()) {
    if (auto it2 = ik->find("max_soft_tokens"); it2 != ik->end() && !it2->is_null()) v = &*it2;
  }
  if (v == nullptr) return std::nullopt;
  if (auto e = CheckMaxSoftTokens(*v)) return e;
  *budget = v->get<int64_t>();
  return std::nullopt;
}

// media_io_kwargs.video.num_frames (vLLM's VideoMediaIO option), bounded by the server.
static std::optional<ApiError> RequestFrames(const Json* kwargs, int64_t max_frames, int64_t* frames) {
  if (kwargs == nullptr || !kwargs->is_object()) return std::nullopt;
  auto video = kwargs->find("video");
  if (video == kwargs->end() || !video->is_object()) return std::nullopt;
  auto n = video->find("num_frames");
  if (n == video->end() || n->is_null()) return std::nullopt;
  if (!n->is_number_integer() || n->get<int64_t>() < 1 || n->get<int64_t>() > max_frames) {
    return ApiError::BadRequest(
        fmt::format("media_io_kwargs.video.num_frames must be an integer from 1 to {}, got {}", max_frames, n->dump()),
        "media_io_kwargs");
  }
  *frames = n->get<int64_t>();
  return std::nullopt;
}

std::optional<ApiError> CheckAudioTower(const MediaServing& serving, const std::vector<MediaPart>& parts) {
  if (serving.audio_tower) return std::nullopt;
  for (const MediaPart& part : parts) {
    if (part.modality != mm::Modality::kAudio) continue;
    return ApiError::BadRequest(fmt::format(
        "Audio input was provided but the model '{}' does not have an audio tower. Audio inference is only supported "
        "for Gemma4 models that include an audio_config (i.e., models that include an audio_config).",
        serving.model_name));
  }
  return std::nullopt;
}

namespace {

// One audio part: an input_audio payload (base64 with a format hint) or an audio_url.
Result<mm::PreparedAudio> PrepareAudioPart(const MediaPart& part, const mm::AudioMediaOptions& options) {
  if (part.url.empty()) {
    if (part.audio_data.size() > options.source.max_bytes / 3 * 4 + 4) {
      return ResourceExhaustedError(
          fmt::format("the input_audio data exceed the media size limit of {} bytes", options.source.max_bytes));
    }
    auto bytes = io::DecodeBase64(part.audio_data);
    if (!bytes.ok()) return InvalidArgumentError("input_audio 'data' is not valid base64: " + bytes.status().message());
    return mm::PrepareAudioBytes(*bytes, part.audio_format, options);
  }
  return mm::PrepareAudio(part.url, options);
}

}  // namespace

std::optional<ApiError> LoadMedia(const MediaServing& serving, const std::vector<MediaPart>& parts,
                                  const Json* mm_processor_kwargs, const Json* media_io_kwargs,
                                  const std::function<bool()>& client_gone, LoadedMedia* out) {
  mm::VisionMediaOptions options = serving.vision;
  options.source.cancelled = client_gone;
  mm::AudioMediaOptions audio_options = serving.audio_options;
  audio_options.source.cancelled = client_gone;
  if (auto e = ReadMaxSoftTokens(mm_processor_kwargs, &options.image_max_soft_tokens)) return e;
  if (auto e = RequestFrames(media_io_kwargs, serving.max_video_frames, &options.video_num_frames)) return e;
  int64_t media_tokens = 0;
  for (const MediaPart& part : parts) {
    const std::string_view name = mm::ModalityName(part.modality);
    const bool supported = part.modality == mm::Modality::kImage   ? serving.image
                           : part.modality == mm::Modality::kVideo ? serving.video
                                                                   : serving.audio;
    if (!supported) {
      const std::string why = part.modality == mm::Modality::kAudio ? "the model has no audio encoder"
                                                                     : serving.no_vision_reason;
      return ApiError::BadRequest(fmt::format("{}: {} input is not supported: {}", part.location, name, why),
                                  "messages");
    }
    Status status = OkStatus();
    if (part.modality == mm::Modality::kImage) {
      auto image = mm::PrepareImage(part.url, options);
      if (image.ok()) out->images.push_back(std::move(*image));
      status = image.status();
    } else if (part.modality == mm::Modality::kVideo) {
      auto video = mm::PrepareVideo(part.url, options);
      if (video.ok()) out->videos.push_back(std::move(*video));
      status = video.status();
    } else {
      auto audio = PrepareAudioPart(part, audio_options);
      if (audio.ok()) out->audios.push_back(std::move(*audio));
      status = audio.status();
    }
    if (!status.ok()) {
      return ApiError::BadRequest(fmt::format("{}: cannot load the {}: {}", part.location, name, status.message()),
                                  "messages");
    }
    // Each image adds its soft tokens and <|image>, <image|>; a frame also its "mm:ss " text;
    // a clip its soft tokens and <|audio>, <audio|>.
    if (part.modality == mm::Modality::kImage) {
      media_tokens += out->images.back().patches->num_soft_tokens() + 2;
    } else if (part.modality == mm::Modality::kVideo) {
      for (const auto& f : out->videos.back().frames) media_tokens += f.patches->num_soft_tokens() + 2;
    } else {
      media_tokens += out->audios.back().features->num_soft_tokens() + 2;
    }
    if (serving.max_model_len > 0 && media_tokens > serving.max_model_len) {
      return ApiError::BadRequest(
          fmt::format("{}: the media up to this part take at least {} tokens, more than the maximum context length "
                      "of {} tokens",
                      part.location, media_tokens, serving.max_model_len),
          "messages");
    }
  }
  return std::nullopt;
}

std::optional<ApiError> ExpandPlaceholders(const LoadedMedia& media, std::string* prompt_text) {
  const size_t images = ReplaceEach(
      prompt_text, kImagePlaceholder,
      [&](size_t k) {
        return std::string(kBeginImage) + Repeat(kImagePlaceholder, media.images[k].patches->num_soft_tokens()) +
               kEndImage;
      },
      media.images.size());
  const size_t videos = ReplaceEach(
      prompt_text, kVideoPlaceholder,
      [&](size_t k) {
        const mm::PreparedVideo& v = media.videos[k];
        std::string run;
        for (size_t f = 0; f < v.frames.size(); ++f) {
          run += mm::FramePrefix(f, v.timestamps[f]) + kBeginImage +
                 Repeat(kVideoPlaceholder, v.frames[f].patches->num_soft_tokens()) + kEndImage;
        }
        return run;
      },
      media.videos.size());
  const size_t audios = ReplaceEach(
      prompt_text, kAudioPlaceholder,
      [&](size_t k) {
        return std::string(kBeginAudio) + Repeat(kAudioPlaceholder, media.audios[k].features->num_soft_tokens()) +
               kEndAudio;
      },
      media.audios.size());
  if (images != media.images.size() || videos != media.videos.size() || audios != media.audios.size()) {
    return ApiError::BadRequest(fmt::format(
        "the rendered prompt has {} image, {} video and {} audio placeholders for {} image, {} video and {} audio "
        "inputs (does the chat template write one placeholder per media part, and does the text contain a literal "
        "placeholder?)",
        images, videos, audios, media.images.size(), media.videos.size(), media.audios.size()));
  }
  return std::nullopt;
}

std::optional<ApiError> BuildItems(const MediaServing& serving, const LoadedMedia& media,
                                   const std::vector<int32_t>& prompt_ids, std::vector<mm::Item>* items) {
  auto image_runs = Runs(prompt_ids, serving.image_token_id);
  auto video_runs = Runs(prompt_ids, serving.video_token_id);
  size_t frames = 0;
  for (const auto& v : media.videos) frames += v.frames.size();
  if (image_runs.size() != media.images.size() || video_runs.size() != frames) {
    return ApiError::BadRequest(fmt::format("the prompt has {} image and {} video-frame token runs for {} images and {} "
                                            "video frames",
                                            image_runs.size(), video_runs.size(), media.images.size(), frames));
  }
  auto audio_runs = Runs(prompt_ids, serving.audio_token_id);
  if (audio_runs.size() != media.audios.size()) {
    return ApiError::BadRequest(fmt::format("the prompt has {} audio token runs for {} audio clips", audio_runs.size(),
                                            media.audios.size()));
  }
  auto add = [&](mm::Modality modality, const std::pair<int64_t, int64_t>& run, int64_t soft_tokens,
                 const mm::ContentHash& hash, std::shared_ptr<const mm::ItemData> data) -> std::optional<ApiError> {
    if (run.second != soft_tokens) {
      return ApiError::BadRequest(fmt::format("a run of {} {} tokens for {} soft tokens", run.second,
                                              mm::ModalityName(modality), soft_tokens));
    }
    mm::Item item;
    item.modality = modality;
    item.placeholder_offset = run.first;
    item.placeholder_length = run.second;
    item.hash = hash;
    // Audio never forms a bidirectional block (multimodal.md §5).
    item.bidirectional = modality != mm::Modality::kAudio && serving.bidirectional_vision;
    item.data = std::move(data);
    items->push_back(std::move(item));
    return std::nullopt;
  };
  auto add_visual = [&](mm::Modality modality, const std::pair<int64_t, int64_t>& run,
                        const mm::PreparedVisual& visual) {
    return add(modality, run, visual.patches->num_soft_tokens(), visual.hash, visual.patches);
  };
  for (size_t i = 0; i < audio_runs.size(); ++i) {
    const mm::PreparedAudio& a = media.audios[i];
    if (auto e = add(mm::Modality::kAudio, audio_runs[i], a.features->num_soft_tokens(), a.hash, a.features)) return e;
  }
  for (size_t i = 0; i < image_runs.size(); ++i) {
    if (auto e = add_visual(mm::Modality::kImage, image_runs[i], media.images[i])) return e;
  }
  size_t run = 0;
  for (const auto& v : media.videos) {
    for (const auto& frame : v.frames) {
      if (auto e = add_visual(mm::Modality::kVideo, video_runs[run++], frame)) return e;
    }
  }
  std::sort(items->begin(), items->end(),
            [](const mm::Item& a, const mm::Item& b) { return a.placeholder_offset < b.placeholder_offset; });
  return std::nullopt;
}

}  // namespace gemmad::api
