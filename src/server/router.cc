// Router (see router.h).
#include "server/router.h"

#include <cctype>

#include "api/request_common.h"
#include "server/error_map.h"

namespace gemmad::server {

void Router::Add(std::string method, std::string path, RouteFn fn, bool json_body) {
  routes_.push_back({std::move(method), std::move(path), false, json_body, std::move(fn)});
}

void Router::AddPrefix(std::string method, std::string prefix, RouteFn fn) {
  routes_.push_back({std::move(method), std::move(prefix), true, false, std::move(fn)});
}

bool Router::Matches(const Route& r, std::string_view path) const {
  if (!r.prefix) return path == r.path;
  return path == r.path || (path.size() > r.path.size() && path.substr(0, r.path.size()) == r.path &&
                            path[r.path.size()] == '/');
}

bool Router::IsProtectedPath(std::string_view path) {
  for (std::string_view p : {"/v1", "/v2", "/inference"}) {
    if (path.substr(0, p.size()) == p) return true;
  }
  return false;
}

bool Router::ConstantTimeEquals(std::string_view given, std::string_view secret) {
  // Reads every byte of `secret` once, whatever `given` is: the time depends only on the secret's
  // length, never on where the first difference is or on how long the guess was.
  volatile unsigned char diff = given.size() == secret.size() ? 0 : 1;
  for (size_t i = 0; i < secret.size(); ++i) {
    const unsigned char g = given.empty() ? 0 : static_cast<unsigned char>(given[i % given.size()]);
    diff = diff | static_cast<unsigned char>(g ^ static_cast<unsigned char>(secret[i]));
  }
  return diff == 0;
}

bool Router::Authorized(std::string_view authorization, const std::vector<std::string>& keys) {
  size_t space = authorization.find(' ');
  if (space == std::string_view::npos) return false;
  std::string scheme(authorization.substr(0, space));
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer") return false;
  std::string_view token = authorization.substr(space + 1);
  bool ok = false;
  for (const std::string& key : keys) ok |= ConstantTimeEquals(token, key);
  return ok;
}

bool Router::IsJsonContentType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  std::string lower(media);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "application/json";
}

std::string_view Router::RoutePath(std::string_view path, std::string_view root_path) {
  if (root_path.empty() || path.substr(0, root_path.size()) != root_path) return path;
  if (path.size() == root_path.size()) return {};
  return path[root_path.size()] == '/' ? path.substr(root_path.size()) : path;
}

void Router::Handle(const HttpRequest& request, Responder& responder) const {
  if (options_.enable_request_id_headers) {
    std::string_view id = request.Header("x-request-id");
    responder.AddHeader("x-request-id", id.empty() ? api::RandomHex(32) : std::string(id));
  }
  // vLLM's auth middleware: the path with the root path removed as a plain prefix.
  std::string_view auth_path = request.path;
  const std::string& root = options_.root_path;
  if (!root.empty() && auth_path.substr(0, root.size()) == root) auth_path.remove_prefix(root.size());
  if (!options_.api_keys.empty() && request.method != "OPTIONS" && IsProtectedPath(auth_path) &&
      !Authorized(request.Header("authorization"), options_.api_keys)) {
    return responder.Send(401, "application/json", UnauthorizedBody());
  }
  if (auto preflight = cors_.Preflight(request)) {
    return responder.Send(preflight->status, "text/plain; charset=utf-8", std::move(preflight->body),
                          preflight->headers);
  }
  for (auto& [name, value] : cors_.SimpleHeaders(request)) responder.AddHeader(std::move(name), std::move(value));
  const std::string_view path = RoutePath(request.path, root);
  bool path_known = false;
  for (const Route& r : routes_) {
    if (!Matches(r, path)) continue;
    path_known = true;
    if (r.method != request.method) continue;
    if (r.json_body && !IsJsonContentType(request.Header("content-type"))) {
      return responder.SendError(
          api::ApiError::Validation("Unsupported Media Type: Only 'application/json' is allowed"));
    }
    return r.fn(request, responder);
  }
  if (path_known) return responder.Send(405, "application/json", DetailBody("Method Not Allowed"));
  responder.Send(404, "application/json", DetailBody("Not Found"));
}

}  // namespace gemmad::server
