// Router: method + path dispatch with vLLM's middleware in front: optional X-Request-Id echo,
// API-key check (Bearer; only /v1, /v2, /inference paths; OPTIONS exempt), JSON content-type
// check for body routes, and FastAPI's 404 / 405 bodies.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_types.h"

namespace gemmad::server {

struct RouterOptions {
  std::vector<std::string> api_keys;  // empty: no auth
  bool enable_request_id_headers = false;
};

using RouteFn = std::function<void(const HttpRequest& request, Responder& responder)>;

class Router {
 public:
  explicit Router(RouterOptions options) : options_(std::move(options)) {}

  // `json_body`: the request must be Content-Type application/json.
  void Add(std::string method, std::string path, RouteFn fn, bool json_body = false);
  // Matches `prefix` and everything below it ("/metrics" also serves "/metrics/...").
  void AddPrefix(std::string method, std::string prefix, RouteFn fn);

  void Handle(const HttpRequest& request, Responder& responder) const;

  // True when the Authorization header carries one of `keys` (constant-time compare).
  static bool Authorized(std::string_view authorization, const std::vector<std::string>& keys);
  // given == secret, in time that depends only on secret.size().
  static bool ConstantTimeEquals(std::string_view given, std::string_view secret);
  static bool IsProtectedPath(std::string_view path);
  static bool IsJsonContentType(std::string_view content_type);

 private:
  struct Route {
    std::string method;
    std::string path;
    bool prefix = false;
    bool json_body = false;
    RouteFn fn;
  };
  bool Matches(const Route& r, std::string_view path) const;

  RouterOptions options_;
  std::vector<Route> routes_;
};

}  // namespace gemmad::server
