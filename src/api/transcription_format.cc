// SpeechJson, SpeechVerboseJson, SpeechSrt, SpeechVtt (see transcription_format.h).
#include "api/transcription_format.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>

namespace gemmad::api {

std::string SubtitleTimestamp(double seconds, char decimal_separator) {
  const int64_t ms = std::llround(std::max(0.0, seconds) * 1000.0);
  return fmt::format("{:02d}:{:02d}:{:02d}{}{:03d}", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, decimal_separator,
                     ms % 1000);
}

double CompressionRatio(std::string_view text) {
  if (text.empty()) return 0;
  uLongf size = compressBound(static_cast<uLong>(text.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(text.data()),
                static_cast<uLong>(text.size()), Z_DEFAULT_COMPRESSION) != Z_OK ||
      size == 0) {
    return 0;
  }
  return static_cast<double>(text.size()) / static_cast<double>(size);
}

std::string SpeechJson(const SpeechResult& r) {
  Json j = Json::object();
  j["text"] = r.text;
  if (r.task == SpeechTask::kTranscribe) {
    // vLLM: the clip's duration rounded up, "as per OpenAI specs".
    j["usage"] = Json{{"type", "duration"}, {"seconds", static_cast<int64_t>(std::ceil(r.duration_s))}};
  }
  return DumpJson(j);
}

std::string SpeechVerboseJson(const SpeechResult& r) {
  Json segment = Json::object();
  segment["id"] = 0;
  segment["seek"] = 0;
  segment["start"] = 0.0;
  segment["end"] = r.duration_s;
  segment["text"] = r.text;
  segment["tokens"] = r.tokens;
  segment["temperature"] = r.temperature;
  segment["avg_logprob"] = r.avg_logprob;
  segment["compression_ratio"] = CompressionRatio(r.text);
  segment["no_speech_prob"] = nullptr;
  Json j = Json::object();
  j["task"] = r.task == SpeechTask::kTranscribe ? "transcribe" : "translate";
  j["language"] = r.language;
  j["duration"] = r.duration_s;
  j["text"] = r.text;
  j["segments"] = Json::array({std::move(segment)});
  if (r.task == SpeechTask::kTranscribe) {
    j["usage"] = Json{{"type", "duration"}, {"seconds", static_cast<int64_t>(std::ceil(r.duration_s))}};
  }
  return DumpJson(j);
}

std::string SpeechSrt(const SpeechResult& r) {
  return fmt::format("1\n{} --> {}\n{}\n\n", SubtitleTimestamp(0, ','), SubtitleTimestamp(r.duration_s, ','), r.text);
}

std::string SpeechVtt(const SpeechResult& r) {
  return fmt::format("WEBVTT\n\n{} --> {}\n{}\n\n", SubtitleTimestamp(0, '.'), SubtitleTimestamp(r.duration_s, '.'),
                     r.text);
}

SpeechBody FormatSpeech(const SpeechResult& r, SpeechFormat format) {
  switch (format) {
    case SpeechFormat::kText:
      return {"text/plain; charset=utf-8", r.text};
    case SpeechFormat::kSrt:
      return {"text/plain; charset=utf-8", SpeechSrt(r)};
    case SpeechFormat::kVtt:
      return {"text/vtt; charset=utf-8", SpeechVtt(r)};
    case SpeechFormat::kVerboseJson:
      return {"application/json", SpeechVerboseJson(r)};
    case SpeechFormat::kJson:
      break;
  }
  return {"application/json", SpeechJson(r)};
}

}  // namespace gemmad::api
