// ApiError: how every OpenAI-API failure travels from api/ to the server, which turns it into
// an HTTP status and an OpenAI error body in one place (server/error_map.h).
// The Status code decides the HTTP status; `validation` marks request-schema errors (vLLM's
// pydantic validation: type "Bad Request") as opposed to semantic ones ("BadRequestError").
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "base/status.h"

namespace gemmad::api {

struct ApiError {
  Status status;
  std::optional<std::string> param;  // the offending request field, when known
  bool validation = false;

  static ApiError Validation(std::string message, std::optional<std::string> param = std::nullopt) {
    return {InvalidArgumentError(std::move(message)), std::move(param), true};
  }
  static ApiError BadRequest(std::string message, std::optional<std::string> param = std::nullopt) {
    return {InvalidArgumentError(std::move(message)), std::move(param), false};
  }
  static ApiError NotFound(std::string message, std::optional<std::string> param = std::nullopt) {
    return {NotFoundError(std::move(message)), std::move(param), false};
  }
  static ApiError Internal(std::string message) { return {InternalError(std::move(message)), std::nullopt, false}; }
  // The field a Status names (Status::field()) becomes `param`.
  static ApiError FromStatus(Status status) {
    std::optional<std::string> param;
    if (!status.field().empty()) param = status.field();
    return {std::move(status), std::move(param), false};
  }
};

}  // namespace gemmad::api
