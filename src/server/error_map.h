// The one place that maps API errors to HTTP status codes and OpenAI error bodies (api.md §2):
//   {"error": {"message", "type", "param", "code"}} with code == the HTTP status.
// Status code -> HTTP: InvalidArgument/OutOfRange/FailedPrecondition 400 (type "Bad Request"
// for request-schema validation, else "BadRequestError"), NotFound 404 NotFoundError,
// PermissionDenied 401, Unimplemented 501 NotImplementedError, ResourceExhausted and
// Unavailable 503 ServiceUnavailableError, everything else 500 InternalServerError.
#pragma once

#include <string>

#include "api/api_error.h"

namespace gemmad::server {

struct ErrorResponse {
  int status = 500;
  std::string body;  // JSON
};

int HttpStatusFor(const api::ApiError& error);
ErrorResponse MapError(const api::ApiError& error);
// The payload of the SSE error event sent when a stream fails after it started.
std::string StreamErrorPayload(const api::ApiError& error);

// Framework-level bodies (FastAPI): {"detail":"Not Found"} etc., and the auth failure body.
std::string DetailBody(std::string_view detail);
std::string UnauthorizedBody();  // {"error":"Unauthorized"}

}  // namespace gemmad::server
