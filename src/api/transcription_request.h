// TranscriptionRequest: the multipart form of POST /v1/audio/transcriptions and
// /v1/audio/translations (vLLM's TranscriptionRequest / TranslationRequest, speech_to_text/
// protocol.py) read with pydantic's lax coercions (form values are strings) and validated with
// vLLM's messages. Translations read fewer sampling fields, as vLLM's TranslationRequest does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_error.h"
#include "api/form_part.h"
#include "api/sampling_request.h"

namespace gemmad::api {

enum class SpeechTask { kTranscribe, kTranslate };
enum class SpeechFormat { kJson, kText, kVerboseJson, kSrt, kVtt };

std::string_view SpeechFormatName(SpeechFormat f);

struct TranscriptionRequest {
  SpeechTask task = SpeechTask::kTranscribe;
  std::string file_bytes;  // the uploaded audio
  std::string file_name;   // as uploaded ("" when the client sent none)
  std::optional<std::string> language;     // ISO 639-1, checked against api/transcription_language.h
  std::optional<std::string> to_language;  // vLLM's extension (translations: default English)
  std::string prompt;                      // "" when absent
  SpeechFormat response_format = SpeechFormat::kJson;
  std::vector<std::string> timestamp_granularities;  // "word" / "segment"
  // model, temperature (0 when absent: vLLM's field default), seed, max_tokens (from
  // max_completion_tokens), stream and its flattened options; for transcriptions also top_p,
  // top_k, min_p and the penalties.
  SamplingRequest sampling;
};

// Reads `form` (its file part's bytes are moved out). Errors: a missing or non-file `file`,
// type errors ("body.<field>: ..."), an unknown response_format or timestamp granularity,
// stream options without stream, an unsupported language code, beam search.
std::optional<ApiError> ParseTranscriptionForm(std::vector<FormPart>& form, SpeechTask task,
                                               TranscriptionRequest* out);

}  // namespace gemmad::api
