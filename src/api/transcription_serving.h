// POST /v1/audio/transcriptions and /v1/audio/translations: prepare (api/transcription_prepare.h),
// submit, then answer in the request's response_format, or stream `transcription.chunk` /
// `translation.chunk` SSE events as vLLM's speech-to-text serving does (deltas in
// choices[].delta.content, optional usage, a final usage chunk, `data: [DONE]`).
#pragma once

#include "api/response_sink.h"
#include "api/serving_context.h"
#include "api/transcription_request.h"

namespace gemmad::api {

// `call.form` holds the multipart form; its file is moved out.
void ServeSpeech(const ServingContext& ctx, ApiCall& call, SpeechTask task, ResponseSink& sink);

}  // namespace gemmad::api
