// TlsContextSource (see tls_refresh.h).
#include "server/tls_refresh.h"

#include <sys/stat.h>

#include "base/log.h"
#include "server/tls_context.h"

namespace gemmad::server {
namespace {

TlsContextSource::FileStamp StampOf(const std::string& path) {
  TlsContextSource::FileStamp s;
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return s;
  s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  s.size = static_cast<long long>(st.st_size);
  s.inode = static_cast<unsigned long long>(st.st_ino);
  return s;
}

}  // namespace

Result<std::unique_ptr<TlsContextSource>> TlsContextSource::Create(const TlsOptions& options) {
  std::unique_ptr<TlsContextSource> source(new TlsContextSource(options));
  source->stamps_ = source->Stamps();  // before loading: a change while loading is seen next time
  GEMMAD_ASSIGN_OR_RETURN(source->current_, MakeTlsContext(options));
  source->last_check_ = std::chrono::steady_clock::now();
  return source;
}

std::vector<TlsContextSource::FileStamp> TlsContextSource::Stamps() const {
  return {StampOf(options_.certfile), StampOf(options_.keyfile), StampOf(options_.ca_certs)};
}

std::shared_ptr<boost::asio::ssl::context> TlsContextSource::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!options_.refresh) return current_;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < options_.refresh_interval) return current_;
  last_check_ = now;
  std::vector<FileStamp> stamps = Stamps();
  if (stamps == stamps_) return current_;
  stamps_ = std::move(stamps);
  auto fresh = MakeTlsContext(options_);
  if (!fresh.ok()) {
    GEMMAD_LOG_WARNING("--enable-ssl-refresh: the changed TLS files could not be loaded; keeping the previous "
                       "certificate: {}", fresh.status().message());
    return current_;
  }
  GEMMAD_LOG_INFO("--enable-ssl-refresh: reloaded the TLS certificate, key and CA files");
  current_ = std::move(*fresh);
  return current_;
}

}  // namespace gemmad::server
