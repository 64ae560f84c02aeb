// LoadMedia (see media_source.h).
#include "mm/media_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "io/base64.h"
#include "io/http_client.h"
#include "mm/address_policy.h"

namespace gemmad::mm {
namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<MediaBytes> LoadDataUrl(std::string_view url, const MediaSourceOptions& o) {
  size_t comma = url.find(',');
  if (comma == std::string_view::npos) return InvalidArgumentError("invalid data URL: no ',' before the data");
  std::string_view meta = url.substr(5, comma - 5);  // after "data:"
  std::string_view payload = url.substr(comma + 1);
  size_t semi = meta.rfind(';');
  if (semi == std::string_view::npos || ToLower(meta.substr(semi + 1)) != "base64") {
    return InvalidArgumentError("only base64 data URLs are supported (data:<media type>;base64,<data>)");
  }
  if (payload.size() / 4 * 3 > o.max_bytes + 2) {
    return ResourceExhaustedError(fmt::format("the data URL holds more than {} bytes", o.max_bytes));
  }
  auto bytes = io::DecodeBase64(payload);
  if (!bytes.ok()) return InvalidArgumentError("invalid data URL: " + bytes.status().message());
  if (bytes->size() > o.max_bytes) {
    return ResourceExhaustedError(fmt::format("the data URL holds more than {} bytes", o.max_bytes));
  }
  return MediaBytes{std::move(*bytes), ToLower(meta.substr(0, semi))};
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
    int lo = hi >= 0 ? HexValue(s[i + 2]) : -1;
    if (lo < 0) return InvalidArgumentError("invalid file URL: a bad %-escape");
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.find('\0') != std::string::npos) return InvalidArgumentError("invalid file URL: a NUL byte in the path");
  return out;
}

Result<MediaBytes> LoadFileUrl(std::string_view url, const MediaSourceOptions& o) {
  if (o.allowed_local_media_path.empty()) {
    return PermissionDeniedError("Cannot load local files without `--allowed-local-media-path`.");
  }
  std::string_view rest = url.substr(7);  // after "file://"
  if (StartsWithNoCase(rest, "localhost/")) rest.remove_prefix(9);
  if (rest.empty() || rest.front() != '/') return InvalidArgumentError("invalid file URL: expected file:///<path>");
  size_t query = rest.find_first_of("?#");
  auto path = PercentDecode(rest.substr(0, query));
  if (!path.ok()) return path.status();
  char root_buf[PATH_MAX];
  char file_buf[PATH_MAX];
  const Status refused = PermissionDeniedError("the file URL's path must be a subpath of `--allowed-local-media-path`");
  if (::realpath(o.allowed_local_media_path.c_str(), root_buf) == nullptr) return refused;
  if (::realpath(path->c_str(), file_buf) == nullptr) {
    return InvalidArgumentError("the file URL names no readable file");
  }
  std::string root(root_buf);
  std::string file(file_buf);
  if (root != "/" && (file.size() <= root.size() || file.compare(0, root.size(), root) != 0 || file[root.size()] != '/')) {
    return refused;
  }
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return InvalidArgumentError("the file URL names no readable file");
  struct stat st {};
  MediaBytes out;
  Status status = OkStatus();
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = InvalidArgumentError("the file URL names no regular file");
  } else if (static_cast<uint64_t>(st.st_size) > o.max_bytes) {
    status = ResourceExhaustedError(fmt::format("the file is larger than {} bytes", o.max_bytes));
  } else {
    out.bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < out.bytes.size()) {
      ssize_t n = ::read(fd, out.bytes.data() + done, out.bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    out.bytes.resize(done);
  }
  ::close(fd);
  if (!status.ok()) return status;
  return out;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Whether libcurl will send this URL through a proxy from the environment (its rules: the
// lower-case scheme variable, HTTPS_PROXY too for https, then all_proxy; no_proxy exempts hosts).
bool Proxied(std::string_view url, const std::string& host) {
  const bool https = StartsWithNoCase(url, "https://");
  std::string proxy = https ? Env("https_proxy") : Env("http_proxy");
  if (proxy.empty() && https) proxy = Env("HTTPS_PROXY");
  if (proxy.empty()) proxy = Env("all_proxy");
  if (proxy.empty()) proxy = Env("ALL_PROXY");
  if (proxy.empty()) return false;
  std::string no_proxy = Env("no_proxy");
  if (no_proxy.empty()) no_proxy = Env("NO_PROXY");
  size_t pos = 0;
  while (pos <= no_proxy.size()) {
    size_t comma = no_proxy.find(',', pos);
    std::string entry = ToLower(no_proxy.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    while (!entry.empty() && entry.front() == ' ') entry.erase(0, 1);
    while (!entry.empty() && entry.back() == ' ') entry.pop_back();
    if (!entry.empty() && entry.front() == '.') entry.erase(0, 1);
    if (entry == "*") return false;
    if (!entry.empty() && (host == entry || (host.size() > entry.size() && host.ends_with("." + entry)))) return false;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

Result<MediaBytes> LoadHttpUrl(std::string_view url, const MediaSourceOptions& o) {
  std::string host = UrlHost(url);
  if (host.empty()) return InvalidArgumentError("invalid URL: no host");
  if (!DomainAllowed(host, o.allowed_media_domains)) {
    return PermissionDeniedError(fmt::format("The URL must be from one of the allowed domains: [{}]. Input URL domain: {}",
                                             fmt::join(o.allowed_media_domains, ", "), host));
  }
  io::HttpRequest req;
  req.url = std::string(url);
  req.connect_timeout_s = std::max<long>(1, o.fetch_timeout_ms / 1000);
  req.low_speed_timeout_s = std::max<long>(1, o.fetch_timeout_ms / 1000);
  req.total_timeout_ms = o.fetch_timeout_ms;
  req.max_body_bytes = o.max_bytes;
  req.max_redirects = o.max_redirects;
  req.web_protocols_only = true;
  req.cancelled = o.cancelled;
  // Through a proxy (https_proxy, http_proxy, all_proxy, as libcurl reads them) the proxy is the
  // operator's choice and resolves the host itself; the address policy covers direct connections.
  if (!o.allow_private_addresses && !Proxied(url, host)) req.allow_address = [](const sockaddr* a) { return IsPublicAddress(a); };
  const std::vector<std::string>& domains = o.allowed_media_domains;
  req.allow_redirect = [&domains](const std::string& next) {
    return (StartsWithNoCase(next, "http://") || StartsWithNoCase(next, "https://")) &&
           DomainAllowed(UrlHost(next), domains);
  };
  auto resp = io::HttpFetch(req);
  if (!resp.ok()) return resp.status();
  if (resp->status != 200) return UnavailableError(fmt::format("the server answered HTTP {}", resp->status));
  MediaBytes out;
  out.bytes.assign(resp->body.begin(), resp->body.end());
  auto ct = resp->headers.find("content-type");
  if (ct != resp->headers.end()) out.mime_type = ToLower(ct->second.substr(0, ct->second.find(';')));
  return out;
}

}  // namespace

std::string UrlHost(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return "";
  std::string_view rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  size_t at = rest.rfind('@');
  if (at != std::string_view::npos) rest.remove_prefix(at + 1);
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    return close == std::string_view::npos ? "" : ToLower(rest.substr(1, close - 1));
  }
  return ToLower(rest.substr(0, rest.find(':')));
}

bool DomainAllowed(std::string_view host, const std::vector<std::string>& allowed) {
  if (allowed.empty()) return true;
  std::string h = ToLower(host);
  for (const std::string& a : allowed) {
    if (ToLower(a) == h) return true;
  }
  return false;
}

Result<MediaBytes> LoadMedia(std::string_view url, const MediaSourceOptions& options) {
  if (StartsWithNoCase(url, "data:")) return LoadDataUrl(url, options);
  if (StartsWithNoCase(url, "file://")) return LoadFileUrl(url, options);
  if (StartsWithNoCase(url, "http://") || StartsWithNoCase(url, "https://")) return LoadHttpUrl(url, options);
  return InvalidArgumentError("The URL must be either a HTTP, data or file URL.");
}

}  // namespace gemmad::mm
