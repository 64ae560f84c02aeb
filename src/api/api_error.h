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
  // The body's `type` when it is not the one the status implies (the Responses routes answer
  // vLLM's "invalid_request_error").
  std::optional<std::string> type;

  static ApiError Validation(std::string message, std::optional<std::string> param = std::nullopt) {
    return {InvalidArgumentError(std::move(message)), std::move(param), true, std::nullopt};
  }
  static ApiError BadRequest(std::string message, std::optional<std::string> param = std::nullopt) {
    return {InvalidArgumentError(std::move(message)), std::move(param), false, std::nullopt};
  }
  static ApiError NotFound(std::string message, std::optional<std::string> param = std::nullopt) {
    return {NotFoundError(std::move(message)), std::move(param), false, std::nullopt};
  }
  static ApiError Internal(std::string message) {
    return {InternalError(std::move(message)), std::nullopt, false, std::nullopt};
  }
  // vLLM's create_error_response(err_type="invalid_request_error", ...).
  static ApiError InvalidRequest(Status status, std::string param) {
    return {std::move(status), std::move(param), false, std::string("invalid_request_error")};
  }
  // The field a Status names (Status::field()) becomes `param`.
  static ApiError FromStatus(Status status) {
    std::optional<std::string> param;
    if (!status.field().empty()) param = status.field();
    return {std::move(status), std::move(param), false, std::nullopt};
  }
};

}  // namespace gemmad::api
