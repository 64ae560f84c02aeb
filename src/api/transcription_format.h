// The audio routes' answers in each response_format: json exactly as vLLM writes it
// ({"text", "usage": {"type": "duration", "seconds"}}; translations {"text"} only), text, and
// what vLLM does not implement written as OpenAI documents it: verbose_json (task, language,
// duration, text, segments) and srt / vtt with one cue spanning the whole clip (gemmad has no
// segment timestamps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/request_fields.h"
#include "api/transcription_request.h"

namespace gemmad::api {

struct SpeechResult {
  SpeechTask task = SpeechTask::kTranscribe;
  std::string text;
  double duration_s = 0;      // of the uploaded clip (before the 30 s truncation)
  std::string language;       // verbose_json: lowercase English name, "unknown" when not given
  double temperature = 0;
  std::vector<int32_t> tokens;  // generated token ids (verbose_json's one segment)
  double avg_logprob = 0;       // mean log probability of those tokens
};

// "HH:MM:SS,mmm" (SRT) or "HH:MM:SS.mmm" (WebVTT), milliseconds rounded.
std::string SubtitleTimestamp(double seconds, char decimal_separator);

std::string SpeechJson(const SpeechResult& r);
std::string SpeechVerboseJson(const SpeechResult& r);
std::string SpeechSrt(const SpeechResult& r);
std::string SpeechVtt(const SpeechResult& r);

// zlib's compression ratio of the text (bytes / compressed bytes), as Whisper reports it.
double CompressionRatio(std::string_view text);

// The body and its content type for a finished request.
struct SpeechBody {
  std::string content_type;
  std::string body;
};
SpeechBody FormatSpeech(const SpeechResult& r, SpeechFormat format);

}  // namespace gemmad::api
