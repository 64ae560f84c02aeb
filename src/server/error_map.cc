// Error mapping (see error_map.h).
#include "server/error_map.h"

#include <nlohmann/json.hpp>

namespace gemmad::server {
namespace {

using Json = nlohmann::ordered_json;

const char* TypeFor(const api::ApiError& e, int status) {
  switch (status) {
    case 400: return e.validation ? "Bad Request" : "BadRequestError";
    case 401: return "UnauthorizedError";
    case 404: return "NotFoundError";
    case 501: return "NotImplementedError";
    case 503: return "ServiceUnavailableError";
    default: return "InternalServerError";
  }
}

Json ErrorObject(const api::ApiError& e) {
  int status = HttpStatusFor(e);
  Json inner = Json::object();
  inner["message"] = e.status.message();
  inner["type"] = e.type ? *e.type : TypeFor(e, status);
  inner["param"] = e.param ? Json(*e.param) : Json(nullptr);
  inner["code"] = status;
  return Json{{"error", std::move(inner)}};
}

}  // namespace

int HttpStatusFor(const api::ApiError& error) {
  switch (error.status.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
    case StatusCode::kFailedPrecondition:
      return 400;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kPermissionDenied: return 401;
    case StatusCode::kUnimplemented: return 501;
    case StatusCode::kResourceExhausted:
    case StatusCode::kUnavailable:
      return 503;
    default: return 500;
  }
}

ErrorResponse MapError(const api::ApiError& error) {
  return {HttpStatusFor(error), ErrorObject(error).dump(-1, ' ', false, Json::error_handler_t::replace)};
}

std::string StreamErrorPayload(const api::ApiError& error) {
  return ErrorObject(error).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string DetailBody(std::string_view detail) {
  return Json{{"detail", std::string(detail)}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string UnauthorizedBody() { return R"({"error":"Unauthorized"})"; }

}  // namespace gemmad::server
