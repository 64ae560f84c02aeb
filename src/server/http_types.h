// The server's view of one HTTP exchange: HttpRequest (parsed by the transport) and Responder
// (how a route answers: a complete response, or the api::ResponseSink streaming interface).
// No HTTP-library type appears here.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/response_sink.h"

namespace gemmad::server {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/v1/models?x=1"
  std::string path;    // target without the query string
  Headers headers;     // names lowercased
  std::string body;
  bool keep_alive = true;
  std::chrono::steady_clock::time_point arrival = std::chrono::steady_clock::now();

  // The first header with this (lowercase) name, or "".
  std::string_view Header(std::string_view lowercase_name) const;
};

class Responder : public api::ResponseSink {
 public:
  // A complete response. Ends the exchange.
  virtual void Send(int status, std::string_view content_type, std::string body, const Headers& extra = {}) = 0;
  // Headers added to every response of this exchange (e.g. X-Request-Id).
  virtual void AddHeader(std::string name, std::string value) = 0;
};

using Handler = std::function<void(HttpRequest request, std::shared_ptr<Responder> responder)>;

}  // namespace gemmad::server
