// Status: the value every expected failure is returned as. A Status carries a code, a one-line
// human message and, for errors about one input field, that field's name (the OpenAI error's
// `param`: "temperature", "max_tokens", ...). Ok() carries none. Invariant: code()==kOk <=>
// message and field are empty.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace gemmad {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // the caller's input is wrong (HTTP 400)
  kNotFound,          // a file, model or route that does not exist (HTTP 404)
  kAlreadyExists,
  kPermissionDenied,  // bad API key, forbidden path (HTTP 401/403)
  kOutOfRange,        // e.g. a prompt longer than max_model_len (HTTP 400)
  kFailedPrecondition,
  kResourceExhausted,  // KV budget, queue full (HTTP 429/503)
  kUnimplemented,      // a feature not supported (HTTP 501 / 400)
  kUnavailable,        // the server is shutting down, hub unreachable (HTTP 503)
  kCancelled,
  kDeadlineExceeded,
  kDataLoss,  // a corrupt or truncated file
  kIoError,
  kInternal,  // a bug; never expected
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
    if (code_ == StatusCode::kOk) message_.clear();
  }
  Status(StatusCode code, std::string message, std::string field) : Status(code, std::move(message)) {
    if (code_ != StatusCode::kOk) field_ = std::move(field);
  }
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The input field the error is about ("" when it is not about one field).
  const std::string& field() const { return field_; }
  // Returns a copy that names `field` (no-op for Ok).
  Status WithField(std::string field) const;
  // "INVALID_ARGUMENT: message" or "OK".
  std::string ToString() const;
  // Returns a copy whose message is "<prefix>: <message>" (no-op for Ok).
  Status WithPrefix(std::string_view prefix) const;
  // Marks a status as consumed on purpose.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string field_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExistsError(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status PermissionDeniedError(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status CancelledError(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status DeadlineExceededError(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
inline Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

}  // namespace gemmad

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define GEMMAD_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::gemmad::Status gemmad_status_ = (expr);        \
    if (!gemmad_status_.ok()) return gemmad_status_; \
  } while (0)
