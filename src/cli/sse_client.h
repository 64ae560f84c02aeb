// SseConnection: one keep-alive HTTP connection (a libcurl easy handle) that POSTs a JSON body and
// reads the server-sent-event stream of the answer, handing each event to a callback as it
// arrives. Shared by `gemmad bench serve` and the `gemmad chat` / `gemmad complete` clients.
// Also GET /v1/models. Use one connection per thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/bench_sse.h"

namespace gemmad::cli {

class SseConnection {
 public:
  // `api_key` ("" = none) is sent as "Authorization: Bearer <key>"; `timeout_s` bounds a whole
  // request (0 = no limit).
  SseConnection(std::string api_key, double timeout_s, std::string user_agent);
  ~SseConnection();
  SseConnection(const SseConnection&) = delete;
  SseConnection& operator=(const SseConnection&) = delete;

  // POSTs `body` to `url` and calls `on_event` for every event of a 200 answer (the last one
  // too when the server omits its blank line). Errors: kUnavailable "<url>: <transport error>" when the server cannot
  // be reached or the connection drops; kInvalidArgument "HTTP <status>: <server message>" for
  // any other status.
  Status Post(const std::string& url, const std::string& body, const std::function<void(const SseEvent&)>& on_event);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The OpenAI error message in an error body ({"error": {"message": ...}}), else its first 300 bytes.
std::string ServerErrorMessage(const std::string& body);

// The ids GET <base_url>/v1/models lists, in order. kUnavailable when the server is unreachable.
Result<std::vector<std::string>> ListModels(const std::string& base_url, const std::string& api_key);

}  // namespace gemmad::cli
