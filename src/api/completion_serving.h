// POST /v1/completions: text, token-id and batched prompts, echo, logprobs; streaming and
// full responses shaped as vLLM's OpenAIServingCompletion (choice index = prompt * n + i).
#pragma once

#include "api/response_sink.h"
#include "api/serving_context.h"

namespace gemmad::api {

void ServeCompletion(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink);

}  // namespace gemmad::api
