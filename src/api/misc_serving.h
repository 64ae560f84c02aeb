// The small JSON routes: GET /v1/models, POST /tokenize, POST /detokenize (vLLM shapes).
#pragma once

#include "api/response_sink.h"
#include "api/serving_context.h"

namespace gemmad::api {

void ServeModels(const ServingContext& ctx, ResponseSink& sink);
void ServeTokenize(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink);
void ServeDetokenize(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink);

}  // namespace gemmad::api
