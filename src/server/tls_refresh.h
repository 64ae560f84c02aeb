// TlsContextSource: the TLS context each new connection gets. With TlsOptions::refresh
// (--enable-ssl-refresh) Current() looks at the certificate, key and CA files' modification
// times (and sizes, inodes) at most once per refresh_interval and, after a change, builds a new
// context from them, as vLLM's SSLCertRefresher reloads on a file change: connections already
// open keep theirs; a reload that fails (a half-written file, a key that does not match yet)
// logs a warning and keeps the old context until the files change again. Internal to server/.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/asio/ssl/context.hpp>

#include "base/result.h"
#include "server/http_server.h"

namespace gemmad::server {

class TlsContextSource {
 public:
  // Builds the first context (errors as MakeTlsContext's).
  static Result<std::unique_ptr<TlsContextSource>> Create(const TlsOptions& options);

  // The context for a connection accepted now; thread-safe.
  std::shared_ptr<boost::asio::ssl::context> Current();

  // What identifies one version of a file; all zero when it cannot be read.
  struct FileStamp {
    long long mtime_ns = 0;
    long long size = 0;
    unsigned long long inode = 0;
    bool operator==(const FileStamp& o) const { return mtime_ns == o.mtime_ns && size == o.size && inode == o.inode; }
  };

 private:
  explicit TlsContextSource(const TlsOptions& options) : options_(options) {}
  std::vector<FileStamp> Stamps() const;

  const TlsOptions options_;
  std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> current_;
  std::vector<FileStamp> stamps_;  // of the files current_ (or the last failed reload) was built from
  std::chrono::steady_clock::time_point last_check_{};
};

}  // namespace gemmad::server
