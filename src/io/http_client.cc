// libcurl implementation of HttpFetch and DownloadResumable.
#include "io/http_client.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sys/socket.h>
#include <mutex>

#include "base/log.h"

namespace gemmad::io {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The body sink of HttpFetch: stops (returns short, which aborts the transfer) past the limit.
struct BodySink {
  std::string* body;
  uint64_t max_bytes;  // 0 = unbounded
  bool too_large = false;
};

size_t AppendBody(char* ptr, size_t size, size_t n, void* userdata) {
  auto* sink = static_cast<BodySink*>(userdata);
  if (sink->max_bytes != 0 && sink->body->size() + size * n > sink->max_bytes) {
    sink->too_large = true;
    return 0;
  }
  sink->body->append(ptr, size * n);
  return size * n;
}

// CURLOPT_OPENSOCKETFUNCTION: the request's address policy, applied to every connection.
struct AddressGate {
  const std::function<bool(const sockaddr*)>* allow;
  bool refused = false;
};

curl_socket_t OpenSocket(void* userdata, curlsocktype, curl_sockaddr* address) {
  auto* gate = static_cast<AddressGate*>(userdata);
  if (*gate->allow && !(*gate->allow)(&address->addr)) {
    gate->refused = true;
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype, address->protocol);
}

int OnCancelPoll(void* p, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancelled = static_cast<const std::function<bool()>*>(p);
  return (*cancelled && (*cancelled)()) ? 1 : 0;
}

size_t CollectHeader(char* buf, size_t size, size_t n, void* userdata) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(userdata);
  std::string line(buf, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();  // a new response (after a redirect): keep only the last hop's headers
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.erase(0, 1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
  (*headers)[name] = value;
  return size * n;
}

struct CurlHandle {
  CURL* h;
  curl_slist* list = nullptr;
  CurlHandle() : h(curl_easy_init()) {}
  ~CurlHandle() {
    if (list != nullptr) curl_slist_free_all(list);
    curl_easy_cleanup(h);
  }
};

void Configure(CurlHandle& c, const HttpRequest& req) {
  curl_easy_setopt(c.h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, req.follow_redirects ? 1L : 0L);
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, req.connect_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, req.low_speed_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "gemmad/0.1");
  // Python's ssl (so vLLM's and huggingface_hub's clients) honours SSL_CERT_FILE; so do we.
  if (const char* ca = std::getenv("SSL_CERT_FILE"); ca != nullptr && *ca != '\0') {
    curl_easy_setopt(c.h, CURLOPT_CAINFO, ca);
  }
  for (const auto& h : req.headers) c.list = curl_slist_append(c.list, h.c_str());
  if (c.list != nullptr) curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.list);
  if (req.total_timeout_ms > 0) curl_easy_setopt(c.h, CURLOPT_TIMEOUT_MS, req.total_timeout_ms);
  if (req.max_redirects >= 0) curl_easy_setopt(c.h, CURLOPT_MAXREDIRS, req.max_redirects);
  if (req.max_body_bytes > 0) {
    curl_easy_setopt(c.h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(req.max_body_bytes));
  }
  if (req.web_protocols_only) {
    curl_easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c.h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  }
}

struct ProgressCtx {
  const ProgressFn* fn;
  uint64_t offset;
};

int OnProgress(void* p, curl_off_t dltotal, curl_off_t dlnow, curl_off_t, curl_off_t) {
  auto* ctx = static_cast<ProgressCtx*>(p);
  if (*ctx->fn) {
    uint64_t total = dltotal > 0 ? ctx->offset + static_cast<uint64_t>(dltotal) : 0;
    (*ctx->fn)(ctx->offset + static_cast<uint64_t>(dlnow), total);
  }
  return 0;
}

uint64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

Result<HttpResponse> FetchOnce(const HttpRequest& req, bool head_only, std::string* redirect_to) {
  GlobalInit();
  CurlHandle c;
  if (c.h == nullptr) return InternalError("curl_easy_init failed");
  Configure(c, req);
  HttpResponse resp;
  if (head_only) curl_easy_setopt(c.h, CURLOPT_NOBODY, 1L);
  BodySink sink{&resp.body, req.max_body_bytes};
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, &CollectHeader);
  curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &resp.headers);
  AddressGate gate{&req.allow_address};
  if (req.allow_address) {
    curl_easy_setopt(c.h, CURLOPT_OPENSOCKETFUNCTION, &OpenSocket);
    curl_easy_setopt(c.h, CURLOPT_OPENSOCKETDATA, &gate);
  }
  if (req.cancelled) {
    curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, &OnCancelPoll);
    curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &req.cancelled);
    curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
  }
  CURLcode rc = curl_easy_perform(c.h);
  if (rc != CURLE_OK) {
    if (sink.too_large || rc == CURLE_FILESIZE_EXCEEDED) {
      return ResourceExhaustedError("the response is larger than " + std::to_string(req.max_body_bytes) + " bytes");
    }
    if (gate.refused) return PermissionDeniedError("the address it resolves to is not allowed");
    if (rc == CURLE_ABORTED_BY_CALLBACK) return CancelledError("the transfer was cancelled");
    if (rc == CURLE_OPERATION_TIMEDOUT) {
      return DeadlineExceededError("timed out after " + std::to_string(req.total_timeout_ms) + " ms");
    }
    if (rc == CURLE_TOO_MANY_REDIRECTS) return UnavailableError("too many redirects");
    if (rc == CURLE_UNSUPPORTED_PROTOCOL) return InvalidArgumentError("unsupported protocol (http and https only)");
    return UnavailableError("cannot reach " + req.url + ": " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &resp.status);
  char* next = nullptr;
  if (redirect_to != nullptr && curl_easy_getinfo(c.h, CURLINFO_REDIRECT_URL, &next) == CURLE_OK && next != nullptr) {
    *redirect_to = next;
  }
  char* eff = nullptr;
  curl_easy_getinfo(c.h, CURLINFO_EFFECTIVE_URL, &eff);
  if (eff != nullptr) resp.effective_url = eff;
  return resp;
}

}  // namespace

Result<HttpResponse> HttpFetch(const HttpRequest& req, bool head_only) {
  if (!req.allow_redirect || !req.follow_redirects) return FetchOnce(req, head_only, nullptr);
  HttpRequest hop = req;
  hop.follow_redirects = false;
  const long max_hops = req.max_redirects >= 0 ? req.max_redirects : 5;
  for (long redirects = 0;; ++redirects) {
    std::string next;
    auto resp = FetchOnce(hop, head_only, &next);
    if (!resp.ok() || next.empty() || resp->status < 300 || resp->status >= 400) return resp;
    if (redirects == max_hops) return UnavailableError("too many redirects");
    if (!req.allow_redirect(next)) return PermissionDeniedError("a redirect leads to a URL that is not allowed");
    hop.url = std::move(next);
  }
}

Status DownloadResumable(const HttpRequest& req, const std::string& path, int max_attempts,
                         const ProgressFn& progress) {
  GlobalInit();
  std::string last_error;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    uint64_t have = FileSize(path);
    CurlHandle c;
    if (c.h == nullptr) return InternalError("curl_easy_init failed");
    HttpRequest r = req;
    if (have > 0) r.headers.push_back("Range: bytes=" + std::to_string(have) + "-");
    Configure(c, r);
    std::map<std::string, std::string> headers;
    // Write to the file only on a 200/206; the first body byte tells which.
    struct Sink {
      CURL* h;
      std::string path;
      uint64_t have;
      FILE* f = nullptr;
      bool failed = false;
      std::string error_body;
    } sink{c.h, path, have};
    auto write = +[](char* ptr, size_t size, size_t n, void* ud) -> size_t {
      auto* s = static_cast<Sink*>(ud);
      if (s->f == nullptr && !s->failed) {
        long status = 0;
        curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &status);
        if (status == 206) {
          s->f = std::fopen(s->path.c_str(), "ab");
        } else if (status == 200) {
          s->f = std::fopen(s->path.c_str(), "wb");  // server ignored Range: start over
          s->have = 0;
        } else {
          s->failed = true;
        }
        if (s->f == nullptr && !s->failed) return 0;
      }
      if (s->failed) {
        if (s->error_body.size() < 4096) s->error_body.append(ptr, size * n);
        return size * n;
      }
      return std::fwrite(ptr, size, n, s->f) * size;
    };
    curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, &CollectHeader);
    curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &headers);
    ProgressCtx pctx{&progress, have};
    curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, &OnProgress);
    curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &pctx);
    curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
    CURLcode rc = curl_easy_perform(c.h);
    long status = 0;
    curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &status);
    if (sink.f != nullptr) std::fclose(sink.f);
    if (status == 416 && have > 0) return OkStatus();  // already complete
    if (sink.failed || (status != 200 && status != 206 && rc == CURLE_OK)) {
      if (status == 401 || status == 403) {
        return PermissionDeniedError("HTTP " + std::to_string(status) + " for " + req.url +
                                     " (gated or private repository? set HF_TOKEN)");
      }
      if (status == 404) return NotFoundError("HTTP 404 for " + req.url);
      return UnavailableError("HTTP " + std::to_string(status) + " for " + req.url);
    }
    if (rc == CURLE_OK) return OkStatus();
    last_error = curl_easy_strerror(rc);
    GEMMAD_LOG_WARNING("download of {} interrupted ({}); resuming (attempt {}/{})", req.url, last_error,
                       attempt + 1, max_attempts);
  }
  return UnavailableError("download of " + req.url + " failed after " + std::to_string(max_attempts) +
                          " attempts: " + last_error);
}

}  // namespace gemmad::io
