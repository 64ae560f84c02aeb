// The /v1/responses routes as vLLM's OpenAIServingResponses (non-harmony path): create (full
// or streamed as typed events), retrieve and cancel of stored responses. A create request is
// converted to a chat request (api/responses_request.h) and runs through the chat route's
// preparation, decoder and gemma4 parsers; the output becomes Responses items.
#pragma once

#include <string>

#include "api/response_sink.h"
#include "api/serving_context.h"

namespace gemmad::api {

// POST /v1/responses.
void ServeResponses(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink);
// GET /v1/responses/{id}[?stream=…&starting_after=…]: `query` is the raw query string.
void ServeResponseRetrieve(const ServingContext& ctx, const std::string& id, const std::string& query,
                           ResponseSink& sink);
// POST /v1/responses/{id}/cancel.
void ServeResponseCancel(const ServingContext& ctx, const std::string& id, ResponseSink& sink);

}  // namespace gemmad::api
