// GET /v1/responses/{id}?stream=true&starting_after=N (vLLM's responses_background_stream_generator):
// the query's parameters, and the replay of a background stream's recorded events from sequence
// number N+1 on, following the live ones until response.completed, an `error` event, or the end
// of the run (a cancelled run ends the stream; vLLM's would wait forever).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/api_error.h"
#include "api/response_sink.h"
#include "api/responses_event_log.h"

namespace gemmad::api {

struct RetrieveQuery {
  bool stream = false;
  std::optional<int64_t> starting_after;
};

// FastAPI's parsing of `stream: bool` ("true"/"1"/"yes"/"on"/"t"/"y" and their negations, any
// case) and `starting_after: int`; anything else is a validation error naming the parameter.
std::optional<ApiError> ParseRetrieveQuery(const std::string& query, RetrieveQuery* out);

// Streams `log` to `sink` from sequence number `start` on. A start before the oldest kept event
// (the log is bounded) is a 400 before anything is sent; events dropped while a slow reader
// follows end its stream with an `error` event.
void ReplayEvents(const ResponseEventLog& log, int64_t start, ResponseSink& sink);

}  // namespace gemmad::api
