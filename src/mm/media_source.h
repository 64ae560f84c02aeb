// LoadMedia: the bytes behind a media URL of a request, as vLLM accepts them: `data:` URLs
// (base64), `file://` paths only under --allowed-local-media-path, and http(s) URLs fetched with
// bounds (size, time, redirects), an optional domain allow-list (--allowed-media-domains) and,
// unless allowed, no private, loopback or link-local addresses. Errors never echo a local path.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::mm {

struct MediaSourceOptions {
  std::string allowed_local_media_path;           // "" refuses file:// URLs
  std::vector<std::string> allowed_media_domains;  // empty: any host
  bool allow_private_addresses = false;           // loopback, RFC 1918, link-local, ULA, ...
  uint64_t max_bytes = 64ull << 20;               // per item, after base64 decoding
  long fetch_timeout_ms = 10000;                  // whole transfer, redirects included
  long max_redirects = 5;
  std::function<bool()> cancelled;                // the client went away
};

struct MediaBytes {
  std::vector<uint8_t> bytes;
  std::string mime_type;  // from the data: URL or the Content-Type header ("" when unknown)
};

// Errors: kInvalidArgument (malformed URL or data), kPermissionDenied (a refused path, domain or
// address), kResourceExhausted (too large), kDeadlineExceeded, kUnavailable (unreachable or
// an HTTP error status), kCancelled.
Result<MediaBytes> LoadMedia(std::string_view url, const MediaSourceOptions& options);

// True when `host` (a hostname or IP literal) passes the allow-list (case-insensitive exact match).
bool DomainAllowed(std::string_view host, const std::vector<std::string>& allowed);

// The host of an http(s) URL ("" when the URL has none); IPv6 literals keep no brackets.
std::string UrlHost(std::string_view url);

}  // namespace gemmad::mm
