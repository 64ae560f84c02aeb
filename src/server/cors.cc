// CorsPolicy (see cors.h); mirrors starlette/middleware/cors.py.
#include "server/cors.h"

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace gemmad::server {
namespace {

bool Contains(const std::vector<std::string>& v, std::string_view x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The first header named `name`, if present (an empty value is present).
std::optional<std::string> Find(const HttpRequest& r, std::string_view name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return std::nullopt;
}

void Set(Headers& h, const std::string& name, std::string value) {
  for (auto& [n, v] : h) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  h.emplace_back(name, std::move(value));
}

}  // namespace

CorsPolicy::CorsPolicy(CorsOptions options) : options_(std::move(options)) {
  all_origins_ = Contains(options_.allow_origins, "*");
  all_headers_ = Contains(options_.allow_headers, "*");
  explicit_origin_ = !all_origins_ || options_.allow_credentials;
  methods_ = Contains(options_.allow_methods, "*")
                 ? std::vector<std::string>{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}
                 : options_.allow_methods;
  // Starlette: sorted(SAFELISTED_HEADERS | set(allow_headers)), compared lowercased.
  std::set<std::string> headers{"Accept", "Accept-Language", "Content-Language", "Content-Type"};
  headers.insert(options_.allow_headers.begin(), options_.allow_headers.end());
  std::vector<std::string> sorted(headers.begin(), headers.end());
  for (const std::string& h : sorted) allowed_headers_lower_.push_back(ToLowerAscii(h));
  if (explicit_origin_) {
    preflight_headers_.emplace_back("vary", "Origin");
  } else {
    preflight_headers_.emplace_back("access-control-allow-origin", "*");
  }
  preflight_headers_.emplace_back("access-control-allow-methods", Join(methods_));
  preflight_headers_.emplace_back("access-control-max-age", std::to_string(options_.max_age_s));
  if (!all_headers_) preflight_headers_.emplace_back("access-control-allow-headers", Join(sorted));
  if (options_.allow_credentials) preflight_headers_.emplace_back("access-control-allow-credentials", "true");
}

bool CorsPolicy::AllowedOrigin(const std::string& origin) const {
  return all_origins_ || Contains(options_.allow_origins, origin);
}

std::optional<CorsPreflight> CorsPolicy::Preflight(const HttpRequest& request) const {
  if (request.method != "OPTIONS") return std::nullopt;
  std::optional<std::string> origin = Find(request, "origin");
  std::optional<std::string> method = Find(request, "access-control-request-method");
  if (!origin || !method) return std::nullopt;
  std::optional<std::string> requested_headers = Find(request, "access-control-request-headers");
  CorsPreflight out;
  out.headers = preflight_headers_;
  std::vector<std::string> failures;
  if (AllowedOrigin(*origin)) {
    if (explicit_origin_) Set(out.headers, "access-control-allow-origin", *origin);
  } else {
    failures.emplace_back("origin");
  }
  if (!Contains(methods_, *method)) failures.emplace_back("method");
  if (all_headers_ && requested_headers) {
    Set(out.headers, "access-control-allow-headers", *requested_headers);
  } else if (requested_headers) {
    for (std::string_view h : StrSplit(ToLowerAscii(*requested_headers), ',')) {
      if (!Contains(allowed_headers_lower_, TrimAscii(h))) {
        failures.emplace_back("headers");
        break;
      }
    }
  }
  if (failures.empty()) {
    out.body = "OK";
  } else {
    out.status = 400;
    out.body = "Disallowed CORS " + Join(failures);
  }
  return out;
}

Headers CorsPolicy::SimpleHeaders(const HttpRequest& request) const {
  Headers h;
  std::optional<std::string> origin = Find(request, "origin");
  if (!origin) return h;
  if (all_origins_) h.emplace_back("access-control-allow-origin", "*");
  if (options_.allow_credentials) h.emplace_back("access-control-allow-credentials", "true");
  const bool has_cookie = Find(request, "cookie").has_value();
  if ((all_origins_ && has_cookie) || (!all_origins_ && AllowedOrigin(*origin))) {
    Set(h, "access-control-allow-origin", *origin);
    h.emplace_back("vary", "Origin");
  }
  return h;
}

}  // namespace gemmad::server
