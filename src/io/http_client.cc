// libcurl implementation of HttpFetch and DownloadResumable.
#include "io/http_client.h"

#include <curl/curl.h>
#include <sys/stat.h>

#include <cctype>
#include <cstdio>
#include <mutex>

#include "base/log.h"

namespace gemmad::io {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t AppendBody(char* ptr, size_t size, size_t n, void* userdata) {
  static_cast<std::string*>(userdata)->append(ptr, size * n);
  return size * n;
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
  for (const auto& h : req.headers) c.list = curl_slist_append(c.list, h.c_str());
  if (c.list != nullptr) curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.list);
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

}  // namespace

Result<HttpResponse> HttpFetch(const HttpRequest& req, bool head_only) {
  GlobalInit();
  CurlHandle c;
  if (c.h == nullptr) return InternalError("curl_easy_init failed");
  Configure(c, req);
  HttpResponse resp;
  if (head_only) curl_easy_setopt(c.h, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &resp.body);
  curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, &CollectHeader);
  curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &resp.headers);
  CURLcode rc = curl_easy_perform(c.h);
  if (rc != CURLE_OK) {
    return UnavailableError("cannot reach " + req.url + ": " + curl_easy_strerror(rc));
  }
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &resp.status);
  char* eff = nullptr;
  curl_easy_getinfo(c.h, CURLINFO_EFFECTIVE_URL, &eff);
  if (eff != nullptr) resp.effective_url = eff;
  return resp;
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
