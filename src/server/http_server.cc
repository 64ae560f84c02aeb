// HttpServer implementation: acceptor (TCP or Unix socket), TLS context, I/O threads, connection
// registry, shutdown.
#include "server/http_server.h"

#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "base/log.h"
#include "server/handler_guard.h"
#include "server/http_connection.h"
#include "server/tls_refresh.h"

#include <boost/asio/executor_work_guard.hpp>
#include "server/worker_pool.h"

namespace gemmad::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using local = asio::local::stream_protocol;

class ServerImpl final : public HttpServer, public ConnectionOwner {
 public:
  ServerImpl(const HttpServerOptions& options, Handler handler)
      : options_(options), handler_(std::move(handler)), ioc_(std::make_unique<asio::io_context>()),
        acceptor_(std::make_unique<tcp::acceptor>(*ioc_)), work_(asio::make_work_guard(*ioc_)),
        workers_(options.max_handler_threads) {}
  ~ServerImpl() override {
    Stop();
    // Destroy Asio objects while the registry (mu_, connections_) still exists: pending
    // handlers may own the last reference to a Connection, whose destructor calls Forget.
    acceptor_.reset();
    uds_acceptor_.reset();
    accept_retry_.reset();
    ioc_.reset();
  }

  Status Listen() {
    if (options_.tls.enabled()) {
      GEMMAD_ASSIGN_OR_RETURN(tls_, TlsContextSource::Create(options_.tls));
    }
    GEMMAD_RETURN_IF_ERROR(options_.uds.empty() ? BindTcp() : BindUnix());
    Accept();
    for (int i = 0; i < std::max(1, options_.num_io_threads); ++i) {
      io_threads_.emplace_back([this] { ioc_->run(); });
    }
    return OkStatus();
  }

  // vLLM binds the path as it is: an existing file (a stale socket too) is an error. gemmad
  // removes the socket it created when it stops.
  Status BindUnix() {
    if (options_.uds.empty() || options_.uds.size() >= sizeof(sockaddr_un{}.sun_path)) {
      return InvalidArgumentError(fmt::format("--uds {}: a socket path must have 1 to {} bytes", options_.uds,
                                              sizeof(sockaddr_un{}.sun_path) - 1));
    }
    boost::system::error_code ec;
    uds_acceptor_ = std::make_unique<local::acceptor>(*ioc_);
    local::endpoint endpoint(options_.uds);
    uds_acceptor_->open(endpoint.protocol(), ec);
    if (!ec) uds_acceptor_->bind(endpoint, ec);
    if (!ec) uds_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return UnavailableError(fmt::format("cannot bind unix:{}: {}", options_.uds, ec.message()));
    bound_uds_ = true;
    return OkStatus();
  }

  Status BindTcp() {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(options_.host, ec);
    if (ec) return InvalidArgumentError(fmt::format("--host {}: not an IP address", options_.host));
    tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
    std::string where = fmt::format("{}:{}", options_.host, options_.port);
    acceptor_->open(endpoint.protocol(), ec);
    if (!ec) acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_->bind(endpoint, ec);
    if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return UnavailableError(fmt::format("cannot bind {}: {}", where, ec.message()));
    port_ = acceptor_->local_endpoint().port();
    return OkStatus();
  }

  int port() const override { return port_; }

  void StopAccepting() override {
    if (stopping_.exchange(true)) return;
    asio::post(*ioc_, [this] {
      boost::system::error_code ignored;
      acceptor_->close(ignored);
      if (uds_acceptor_) uds_acceptor_->close(ignored);
    });
    for (auto& c : Snapshot()) c->CloseWhenIdle();
  }

  bool WaitIdle(std::chrono::steady_clock::time_point deadline) override {
    std::unique_lock<std::mutex> lock(mu_);
    return idle_cv_.wait_until(lock, deadline, [&] { return in_flight_ == 0; });
  }

  void Stop() override {
    if (stopped_.exchange(true)) return;
    StopAccepting();
    for (auto& c : Snapshot()) c->CloseNow();
    workers_.Shutdown();  // handlers return once their clients are gone
    work_.reset();
    ioc_->stop();
    for (auto& t : io_threads_) t.join();
    io_threads_.clear();
    if (bound_uds_) ::unlink(options_.uds.c_str());
  }

  size_t num_in_flight() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return in_flight_;
  }

  // ConnectionOwner.
  void Dispatch(HttpRequest request, std::shared_ptr<Responder> responder) override {
    auto r = std::static_pointer_cast<ConnectionResponder>(responder);
    workers_.Submit([this, request = std::move(request), r]() mutable {
      RunHandlerGuarded(handler_, std::move(request), r);
      r->Abandon();
    });
  }
  void ExchangeStarted() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++in_flight_;
  }
  void ExchangeEnded() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (in_flight_ > 0) --in_flight_;
    if (in_flight_ == 0) idle_cv_.notify_all();
  }
  bool stopping() const override { return stopping_.load(); }
  const HttpServerOptions& options() const override { return options_; }
  void Forget(Connection* connection) override {
    std::lock_guard<std::mutex> lock(mu_);
    connections_.erase(connection);
  }

 private:
  void Accept() {
    if (uds_acceptor_) return AcceptOn(*uds_acceptor_);
    AcceptOn(*acceptor_);
  }

  template <class Acceptor>
  void AcceptOn(Acceptor& acceptor) {
    using Socket = typename Acceptor::protocol_type::socket;
    acceptor.async_accept(asio::make_strand(*ioc_), [this](boost::system::error_code ec, Socket socket) {
      if (ec) {
        if (!stopping_.load() && ec != asio::error::operation_aborted) RetryAccept(ec);
        return;
      }
      if constexpr (std::is_same_v<Socket, tcp::socket>) {
        boost::system::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
      }
      auto stream = std::make_unique<ConnStream>(std::move(socket), tls_ ? tls_->Current() : nullptr);
      auto c = std::make_shared<Connection>(std::move(stream), *this);
      {
        std::lock_guard<std::mutex> lock(mu_);
        connections_[c.get()] = c;
      }
      c->Start();
      if (!stopping_.load()) Accept();
    });
  }

  std::vector<std::shared_ptr<Connection>> Snapshot() {
    std::vector<std::shared_ptr<Connection>> out;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [ptr, weak] : connections_) {
      if (auto c = weak.lock()) out.push_back(std::move(c));
    }
    return out;
  }

  const HttpServerOptions options_;
  Handler handler_;
  std::unique_ptr<asio::io_context> ioc_;
  // Out of file descriptors (EMFILE/ENFILE: e.g. thousands of idle connections) or another accept
  // error: try again after 50 ms instead of spinning, and log at most once a second.
  void RetryAccept(const boost::system::error_code& ec) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_accept_warning_ > std::chrono::seconds(1)) {
      last_accept_warning_ = now;
      GEMMAD_LOG_WARNING("accept failed: {} ({} connections open); retrying", ec.message(), NumConnections());
    }
    accept_retry_->expires_after(std::chrono::milliseconds(50));
    accept_retry_->async_wait([this](boost::system::error_code tec) {
      if (!tec && !stopping_.load()) Accept();
    });
  }
  size_t NumConnections() const {
    std::lock_guard<std::mutex> lock(mu_);
    return connections_.size();
  }

  std::unique_ptr<tcp::acceptor> acceptor_;
  std::unique_ptr<local::acceptor> uds_acceptor_;  // --uds instead of acceptor_
  bool bound_uds_ = false;
  std::unique_ptr<TlsContextSource> tls_;  // null without TLS
  std::unique_ptr<asio::steady_timer> accept_retry_ = std::make_unique<asio::steady_timer>(*ioc_);
  std::chrono::steady_clock::time_point last_accept_warning_{};
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  WorkerPool workers_;
  std::vector<std::thread> io_threads_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  size_t in_flight_ = 0;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> connections_;
};

}  // namespace

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options, Handler handler) {
  auto server = std::make_unique<ServerImpl>(options, std::move(handler));
  GEMMAD_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace gemmad::server
