// CorsPolicy: Starlette's CORSMiddleware as vLLM configures it (--allowed-origins,
// --allowed-methods, --allowed-headers: default ["*"]; --allow-credentials: default false;
// max-age 600; no origin regex, no exposed headers). Pure: the Router asks it for a preflight
// answer or for the headers a simple (actual) request's response gets.
// Starlette's rules, reproduced exactly (header names lowercase, as Starlette writes them):
//  * A request without an Origin header is not touched.
//  * Preflight = OPTIONS with Origin and Access-Control-Request-Method, on any path: 200 "OK" or
//    400 "Disallowed CORS origin, method, headers" (the failures found, in that order), text/plain,
//    with allow-methods, max-age, allow-headers (mirrored when "*"), allow-credentials, and
//    allow-origin "*" (all origins, no credentials) or the request's Origin plus `vary: Origin`.
//  * Simple requests: allow-origin "*" (all origins) and allow-credentials; the request's Origin
//    (plus vary) instead when origins are restricted and it is listed, or when all are allowed and
//    the request carries a Cookie.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/http_types.h"

namespace gemmad::server {

struct CorsOptions {
  std::vector<std::string> allow_origins{"*"};
  std::vector<std::string> allow_methods{"*"};
  std::vector<std::string> allow_headers{"*"};
  bool allow_credentials = false;
  int max_age_s = 600;
};

struct CorsPreflight {
  int status = 200;
  std::string body;  // text/plain; charset=utf-8
  Headers headers;
};

class CorsPolicy {
 public:
  explicit CorsPolicy(CorsOptions options);

  // The preflight answer when `request` is one (OPTIONS + Origin + Access-Control-Request-Method).
  std::optional<CorsPreflight> Preflight(const HttpRequest& request) const;
  // Headers for the response to a non-preflight request (empty without an Origin header).
  Headers SimpleHeaders(const HttpRequest& request) const;

 private:
  bool AllowedOrigin(const std::string& origin) const;

  CorsOptions options_;
  bool all_origins_ = false;
  bool all_headers_ = false;
  bool explicit_origin_ = false;          // preflights echo the Origin (restricted, or credentials)
  std::vector<std::string> methods_;      // "*" expanded to Starlette's ALL_METHODS
  std::vector<std::string> allowed_headers_lower_;
  Headers preflight_headers_;
};

}  // namespace gemmad::server
