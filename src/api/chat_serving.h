// POST /v1/chat/completions: prepare, submit, then stream SSE chunks or build one response,
// shaped exactly as vLLM's OpenAIServingChat (field order, nulls, usage, finish reasons).
#pragma once

#include "api/response_sink.h"
#include "api/serving_context.h"

namespace gemmad::api {

void ServeChat(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink);

}  // namespace gemmad::api
