// SseConnection and ListModels over libcurl.
#include "cli/sse_client.h"

#include <curl/curl.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>

namespace gemmad::cli {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct PostState {
  CURL* handle = nullptr;
  long status = 0;  // read from the handle at the first bytes
  SseParser parser;
  std::string error_body;  // non-200 answers (first 4 KiB)
  const std::function<void(const SseEvent&)>* on_event = nullptr;
};

size_t OnData(char* ptr, size_t size, size_t nmemb, void* user) {
  auto* s = static_cast<PostState*>(user);
  const size_t n = size * nmemb;
  if (s->status == 0) curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
  if (s->status != 200) {
    if (s->error_body.size() < 4096) s->error_body.append(ptr, std::min<size_t>(n, 4096));
    return n;
  }
  for (const SseEvent& e : s->parser.Feed(std::string_view(ptr, n))) (*s->on_event)(e);
  return n;
}

size_t OnBody(char* ptr, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(ptr, size * nmemb);
  return size * nmemb;
}

}  // namespace

std::string ServerErrorMessage(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object()) {
    const nlohmann::json* e = j.contains("error") ? &j["error"] : &j;
    if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) return (*e)["message"];
    if (e->is_string()) return e->get<std::string>();
  }
  return body.substr(0, 300);
}

struct SseConnection::Impl {
  CURL* h = nullptr;
  curl_slist* headers = nullptr;
  double timeout_s = 0;
  std::string user_agent;
};

SseConnection::SseConnection(std::string api_key, double timeout_s, std::string user_agent)
    : impl_(std::make_unique<Impl>()) {
  GlobalInit();
  impl_->h = curl_easy_init();
  impl_->timeout_s = timeout_s;
  impl_->user_agent = std::move(user_agent);
  impl_->headers = curl_slist_append(nullptr, "Content-Type: application/json");
  impl_->headers = curl_slist_append(impl_->headers, "Accept: text/event-stream");
  if (!api_key.empty()) impl_->headers = curl_slist_append(impl_->headers, ("Authorization: Bearer " + api_key).c_str());
}

SseConnection::~SseConnection() {
  if (impl_->h) curl_easy_cleanup(impl_->h);
  if (impl_->headers) curl_slist_free_all(impl_->headers);
}

Status SseConnection::Post(const std::string& url, const std::string& body,
                           const std::function<void(const SseEvent&)>& on_event) {
  if (impl_->h == nullptr) return InternalError("curl_easy_init failed");
  CURL* h = impl_->h;
  PostState s;
  s.handle = h;
  s.on_event = &on_event;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, impl_->headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnData);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(impl_->timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_USERAGENT, impl_->user_agent.c_str());
  CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK && s.status == 200) {
    if (auto e = s.parser.Finish()) on_event(*e);
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK) return UnavailableError(fmt::format("{}: {}", url, curl_easy_strerror(rc)));
  if (status != 200) return InvalidArgumentError(fmt::format("HTTP {}: {}", status, ServerErrorMessage(s.error_body)));
  return OkStatus();
}

Result<std::vector<std::string>> ListModels(const std::string& base_url, const std::string& api_key) {
  GlobalInit();
  CURL* h = curl_easy_init();
  if (h == nullptr) return InternalError("curl_easy_init failed");
  std::string body;
  curl_slist* headers = nullptr;
  if (!api_key.empty()) headers = curl_slist_append(nullptr, ("Authorization: Bearer " + api_key).c_str());
  const std::string url = base_url + "/v1/models";
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 60L);
  if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  if (headers) curl_slist_free_all(headers);
  if (rc != CURLE_OK) return UnavailableError(fmt::format("cannot reach {}: {}", url, curl_easy_strerror(rc)));
  if (status != 200) return UnavailableError(fmt::format("GET {}: HTTP {}: {}", url, status, ServerErrorMessage(body)));
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  std::vector<std::string> ids;
  if (j.is_object() && j.contains("data") && j["data"].is_array()) {
    for (const auto& m : j["data"]) {
      if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"]);
    }
  }
  if (ids.empty()) return UnavailableError(fmt::format("GET {}: no models listed", url));
  return ids;
}

}  // namespace gemmad::cli
