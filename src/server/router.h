// Router: method + path dispatch with vLLM's middleware in front, in vLLM's order: optional
// X-Request-Id echo, API-key check (Bearer; only /v1, /v2, /inference paths; OPTIONS exempt; its
// 401 carries no CORS headers, as vLLM's auth middleware runs outside CORS), CORS (cors.h:
// preflights answered on any path, simple requests get the allow headers), then routing with
// --root-path stripped the way Starlette does (a path with or without the prefix is served), JSON
// content-type check for body routes, and FastAPI's 404 / 405 bodies.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/cors.h"
#include "server/http_types.h"

namespace gemmad::server {

struct RouterOptions {
  std::vector<std::string> api_keys;  // empty: no auth
  bool enable_request_id_headers = false;
  CorsOptions cors;
  std::string root_path;  // --root-path: FastAPI's root_path ("" or "/prefix")
};

using RouteFn = std::function<void(const HttpRequest& request, Responder& responder)>;

class Router {
 public:
  explicit Router(RouterOptions options) : options_(std::move(options)), cors_(options_.cors) {}

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
  // Starlette's get_route_path: `path` without a leading `root_path` segment ("/api/v1/x" ->
  // "/v1/x", "/api" -> ""); a path that does not start with it is routed as it is.
  static std::string_view RoutePath(std::string_view path, std::string_view root_path);

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
  CorsPolicy cors_;
  std::vector<Route> routes_;
};

}  // namespace gemmad::server
