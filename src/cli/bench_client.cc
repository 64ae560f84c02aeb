// libcurl streaming client for `gemmad bench serve`.
#include "cli/bench_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <chrono>
#include <mutex>

#include "cli/bench_sse.h"

namespace gemmad::cli {
namespace {

using Clock = std::chrono::steady_clock;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

double Since(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Per-request state the write callback updates.
struct StreamState {
  Clock::time_point start;
  Clock::time_point last;
  SseParser parser;
  RequestResult* result = nullptr;
  long status = 0;  // filled lazily from the handle
  CURL* handle = nullptr;
  std::string error_body;  // non-200 answers
  bool first = false;
  int64_t chunks = 0;
  std::optional<int64_t> usage_tokens;

  void OnEvent(const SseEvent& e) {
    CompletionChunk c = ParseCompletionChunk(e.data);
    switch (c.kind) {
      case CompletionChunk::Kind::kDone:
        break;
      case CompletionChunk::Kind::kError:
        if (result->error.empty()) result->error = c.error;
        break;
      case CompletionChunk::Kind::kText: {
        const Clock::time_point now = Clock::now();
        if (!first) {
          first = true;
          result->ttft_s = Since(start, now);
        } else {
          result->itl_s.push_back(Since(last, now));
        }
        last = now;
        ++chunks;
        result->generated_text += c.text;
        if (c.completion_tokens) usage_tokens = c.completion_tokens;
        break;
      }
      case CompletionChunk::Kind::kUsage:
        usage_tokens = c.completion_tokens;
        break;
      case CompletionChunk::Kind::kOther:
        break;
    }
  }
};

size_t OnData(char* ptr, size_t size, size_t nmemb, void* user) {
  auto* s = static_cast<StreamState*>(user);
  const size_t n = size * nmemb;
  if (s->status == 0) curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &s->status);
  if (s->status != 200) {
    if (s->error_body.size() < 4096) s->error_body.append(ptr, std::min<size_t>(n, 4096));
    return n;
  }
  for (const SseEvent& e : s->parser.Feed(std::string_view(ptr, n))) s->OnEvent(e);
  return n;
}

size_t OnBody(char* ptr, size_t size, size_t nmemb, void* user) {
  static_cast<std::string*>(user)->append(ptr, size * nmemb);
  return size * nmemb;
}

std::string ErrorMessage(const std::string& body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object()) {
    const nlohmann::json* e = j.contains("error") ? &j["error"] : &j;
    if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) return (*e)["message"];
    if (e->is_string()) return e->get<std::string>();
  }
  return body.substr(0, 300);
}

}  // namespace

struct BenchConnection::Impl {
  CURL* h = nullptr;
  curl_slist* headers = nullptr;
  double timeout_s = 0;
};

BenchConnection::BenchConnection(std::string api_key, double timeout_s) : impl_(std::make_unique<Impl>()) {
  GlobalInit();
  impl_->h = curl_easy_init();
  impl_->timeout_s = timeout_s;
  impl_->headers = curl_slist_append(nullptr, "Content-Type: application/json");
  impl_->headers = curl_slist_append(impl_->headers, "Accept: text/event-stream");
  if (!api_key.empty()) impl_->headers = curl_slist_append(impl_->headers, ("Authorization: Bearer " + api_key).c_str());
}

BenchConnection::~BenchConnection() {
  if (impl_->h) curl_easy_cleanup(impl_->h);
  if (impl_->headers) curl_slist_free_all(impl_->headers);
}

RequestResult BenchConnection::StreamCompletion(const std::string& url, const nlohmann::json& body,
                                                int64_t prompt_len) {
  RequestResult r;
  r.prompt_len = prompt_len;
  if (impl_->h == nullptr) {
    r.error = "curl_easy_init failed";
    return r;
  }
  CURL* h = impl_->h;
  const std::string payload = body.dump();
  StreamState s;
  s.result = &r;
  s.handle = h;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload.c_str());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, impl_->headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnData);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(impl_->timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "gemmad-bench/0.1");
  s.start = Clock::now();
  s.last = s.start;
  CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK) {
    if (auto e = s.parser.Finish()) s.OnEvent(*e);
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK) {
    r.error = fmt::format("{}: {}", url, curl_easy_strerror(rc));
  } else if (status != 200) {
    r.error = fmt::format("HTTP {}: {}", status, ErrorMessage(s.error_body));
  } else if (!s.first) {
    if (r.error.empty()) r.error = "Never received a valid chunk to calculate TTFT.";
  } else if (r.error.empty()) {
    r.success = true;
  }
  if (r.success) {
    r.latency_s = Since(s.start, s.last);
    // Without usage (a server ignoring stream_options), one content chunk counts as one token.
    // A stream that ends without [DONE] still counts (vLLM's client does not require it).
    r.output_tokens = s.usage_tokens.value_or(s.chunks);
  }
  return r;
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
  if (status != 200) return UnavailableError(fmt::format("GET {}: HTTP {}: {}", url, status, ErrorMessage(body)));
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
