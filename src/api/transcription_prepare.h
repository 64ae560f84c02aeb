// PrepareSpeech: an audio-route request from form to engine request. The upload becomes one
// user message — an input_audio part (the bytes, base64) first, then Gemma 4's instruction
// (api/transcription_prompt.h) — rendered, tokenized and loaded by the chat path
// (RenderAndTokenize) with thinking off, so the chat template, the audio limits and the
// audio-tower check are the chat route's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/sampling_build.h"
#include "api/serving_context.h"
#include "api/transcription_request.h"
#include "mm/item.h"

namespace gemmad::api {

struct PreparedSpeech {
  TranscriptionRequest request;
  std::string request_id;  // "transcribe-..." / "translate-..." as vLLM names them
  int64_t created = 0;
  std::vector<int32_t> prompt_ids;
  std::vector<mm::Item> mm_items;
  double duration_s = 0;  // the clip's
  BuiltSampling sampling;
};

// The chat messages PrepareSpeech renders (exposed for tests): one user message with the audio
// (`format`: the file name's extension) and then `instruction`.
Json SpeechMessages(const std::string& audio_base64, const std::string& format, const std::string& instruction);

// The file name's extension, lowercased, as the audio decoder's format hint ("" if none).
std::string AudioFormatHint(const std::string& file_name);

// `call.form`'s file bytes are moved out.
std::optional<ApiError> PrepareSpeech(const ServingContext& ctx, ApiCall& call, SpeechTask task, PreparedSpeech* out);

}  // namespace gemmad::api
