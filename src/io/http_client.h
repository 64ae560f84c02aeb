// Blocking HTTP(S) requests over libcurl, for hub downloads and media URLs. Resumable downloads:
// a partial file is continued with a Range request; a 200 answer to a Range restarts it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

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
