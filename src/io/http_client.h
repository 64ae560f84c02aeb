// Blocking HTTP(S) requests over libcurl, for hub downloads and media URLs. Resumable downloads:
// a partial file is continued with a Range request; a 200 answer to a Range restarts it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

struct sockaddr;

namespace gemmad::io {

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; the last hop's headers
  std::string body;
  std::string effective_url;
};

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  bool follow_redirects = true;
  long connect_timeout_s = 10;
  long low_speed_timeout_s = 60;  // abort when below 1 byte/s for this long
  // Bounds for untrusted URLs (media); 0 / empty = unbounded, as for hub downloads.
  uint64_t max_body_bytes = 0;       // larger bodies (declared or received) fail with kResourceExhausted
  long total_timeout_ms = 0;         // the whole transfer, redirects included
  long max_redirects = -1;           // -1: libcurl's default
  bool web_protocols_only = false;   // http and https only, on the first hop and on every redirect
  // Called with every address libcurl is about to connect to (after DNS, on each hop); false
  // refuses the connection (kPermissionDenied).
  std::function<bool(const sockaddr*)> allow_address;
  std::function<bool()> cancelled;   // polled during the transfer; true aborts it (kCancelled)
  // When set, redirects are followed one hop at a time (at most max_redirects, default 5) and
  // each target URL must pass it (kPermissionDenied otherwise), e.g. a domain allow-list.
  std::function<bool(const std::string& url)> allow_redirect;
};

// GET (or HEAD when head_only) into memory. Network failures are kUnavailable.
Result<HttpResponse> HttpFetch(const HttpRequest& req, bool head_only = false);

// Called with (bytes_done, bytes_total or 0 when unknown).
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

// Downloads into `path`, continuing an existing partial file with "Range: bytes=<size>-".
// Retries dropped connections up to `max_attempts` times, each time resuming.
// Returns the final HTTP status of the last attempt on success (200 or 206).
Status DownloadResumable(const HttpRequest& req, const std::string& path, int max_attempts,
                         const ProgressFn& progress);

}  // namespace gemmad::io
