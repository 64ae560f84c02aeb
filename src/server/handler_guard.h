// RunHandlerGuarded: runs one request's Handler so that nothing it throws ends the process. An
// allocation that fails anywhere in request handling (std::bad_alloc) answers that request with
// 503, any other escaped exception with 500 (or, mid-stream, an SSE error event and [DONE]);
// other requests never notice (issue 29).
#pragma once

#include <memory>

#include "server/http_types.h"

namespace gemmad::server {

void RunHandlerGuarded(const Handler& handler, HttpRequest request, std::shared_ptr<Responder> responder);

}  // namespace gemmad::server
