// ParseTranscriptionForm (see transcription_request.h).
#include "api/transcription_request.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "api/transcription_language.h"

namespace gemmad::api {
namespace {

constexpr std::array<std::pair<SpeechFormat, std::string_view>, 5> kFormats = {{
    {SpeechFormat::kJson, "json"},
    {SpeechFormat::kText, "text"},
    {SpeechFormat::kSrt, "srt"},
    {SpeechFormat::kVerboseJson, "verbose_json"},
    {SpeechFormat::kVtt, "vtt"},
}};

constexpr std::string_view kGranularities = "timestamp_granularities[]";

// The form's text fields as a JSON object for FieldReader: the last value of a repeated field
// wins (Starlette's FormData), the granularities list keeps all; a file where text is expected
// becomes an object, which FieldReader reports as the wrong type.
Json FieldsOf(const std::vector<FormPart>& form) {
  Json fields = Json::object();
  for (const FormPart& p : form) {
    if (p.name == "file") continue;
    Json value = p.is_file() ? Json::object() : Json(p.data);
    if (p.name == kGranularities || p.name == "timestamp_granularities") {
      fields[std::string(kGranularities)].push_back(std::move(value));
    } else {
      fields[p.name] = std::move(value);
    }
  }
  return fields;
}

std::optional<ApiError> TakeFile(std::vector<FormPart>& form, TranscriptionRequest* out) {
  FormPart* file = nullptr;
  for (FormPart& p : form) {
    if (p.name == "file") file = &p;
  }
  if (file == nullptr) return ApiError::Validation("body.file: Field required", "file");
  if (!file->is_file()) return ApiError::Validation("Expected 'file' to be a file-like object, not 'str'.", "file");
  out->file_bytes = std::move(file->data);
  out->file_name = *file->filename;
  return std::nullopt;
}

void ReadFormat(FieldReader& r, TranscriptionRequest* out) {
  std::optional<std::string> f = r.String("response_format");
  if (!f) return;
  for (const auto& [format, name] : kFormats) {
    if (*f == name) {
      out->response_format = format;
      return;
    }
  }
  r.Fail("response_format", "Input should be 'json', 'text', 'srt', 'verbose_json' or 'vtt'");
}

void ReadGranularities(FieldReader& r, TranscriptionRequest* out) {
  std::optional<std::vector<std::string>> g = r.StringList(kGranularities);
  if (!g) return;
  for (size_t i = 0; i < g->size(); ++i) {
    if ((*g)[i] != "word" && (*g)[i] != "segment") {
      r.Fail(fmt::format("{}.{}", kGranularities, i), "Input should be 'word' or 'segment'");
      return;
    }
  }
  out->timestamp_granularities = std::move(*g);
}

void ReadSampling(FieldReader& r, SpeechTask task, SamplingRequest* s) {
  s->model = r.String("model");
  s->temperature = r.Float("temperature").value_or(0.0);
  s->seed = r.Int("seed");
  s->max_tokens = r.Int("max_completion_tokens");
  s->use_beam_search = r.Bool("use_beam_search").value_or(false);
  s->stream = r.Bool("stream").value_or(false);
  s->include_usage = r.Bool("stream_include_usage").value_or(false);
  s->continuous_usage_stats = r.Bool("stream_continuous_usage_stats").value_or(false);
  if (task == SpeechTask::kTranscribe) {
    s->top_p = r.Float("top_p");
    s->top_k = r.Int("top_k");
    s->min_p = r.Float("min_p");
    s->frequency_penalty = r.Float("frequency_penalty");
    s->presence_penalty = r.Float("presence_penalty");
    s->repetition_penalty = r.Float("repetition_penalty");
  }
  if (r.ok() && !s->stream && (s->include_usage || s->continuous_usage_stats)) {
    r.FailValue("Stream options can only be defined when `stream=True`.");
  }
}

}  // namespace

std::string_view SpeechFormatName(SpeechFormat f) {
  for (const auto& [format, name] : kFormats) {
    if (format == f) return name;
  }
  return "json";
}

std::optional<ApiError> ParseTranscriptionForm(std::vector<FormPart>& form, SpeechTask task,
                                               TranscriptionRequest* out) {
  out->task = task;
  const Json fields = FieldsOf(form);
  FieldReader r(fields);
  ReadSampling(r, task, &out->sampling);
  out->language = r.String("language");
  out->to_language = r.String("to_language");
  out->prompt = r.String("prompt").value_or("");
  ReadFormat(r, out);
  ReadGranularities(r, out);
  if (!r.ok()) return r.error();
  if (auto e = TakeFile(form, out)) return e;
  if (out->sampling.use_beam_search) {
    return ApiError::BadRequest("beam search is not supported by gemmad", "use_beam_search");
  }
  for (const auto& [field, value] : {std::pair{"language", &out->language}, std::pair{"to_language", &out->to_language}}) {
    if (*value && !LanguageName(**value)) return UnsupportedLanguage(**value, field);
  }
  return std::nullopt;
}

}  // namespace gemmad::api
