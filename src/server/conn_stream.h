// ConnStream: the byte stream of one accepted connection: TCP, a Unix domain socket (--uds), or
// TLS over either (--ssl-certfile). Connection reads and writes only through it (Beast and Asio
// see an AsyncReadStream / AsyncWriteStream), so the TLS layer (handshake, records) lives here
// and in tls_context.h, not in the HTTP code. Internal to server/ (includes Boost); every call
// happens on the connection's strand (the socket's executor).
#pragma once

#include <memory>
#include <type_traits>
#include <utility>  // before Boost 1.74 Asio, whose awaitable.hpp needs std::exchange
#include <variant>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

namespace gemmad::server {

class ConnStream {
 public:
  using Tcp = boost::asio::ip::tcp::socket;
  using Unix = boost::asio::local::stream_protocol::socket;
  using executor_type = boost::asio::any_io_executor;

  // `tls`: the context this connection uses when TLS is on, else null; held for the connection's
  // life (with --enable-ssl-refresh the server may move on to a newer one). Not movable (an SSL
  // stream is not).
  ConnStream(Tcp socket, std::shared_ptr<boost::asio::ssl::context> tls);
  ConnStream(Unix socket, std::shared_ptr<boost::asio::ssl::context> tls);
  ConnStream(const ConnStream&) = delete;
  ConnStream& operator=(const ConnStream&) = delete;

  executor_type get_executor() {
    return std::visit([](auto& s) -> executor_type { return s.get_executor(); }, v_);
  }
  bool is_tls() const {
    return std::holds_alternative<TlsTcp>(v_) || std::holds_alternative<TlsUnix>(v_);
  }

  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    std::visit([&](auto& s) { s.async_read_some(buffers, std::forward<Handler>(handler)); }, v_);
  }
  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    std::visit([&](auto& s) { s.async_write_some(buffers, std::forward<Handler>(handler)); }, v_);
  }
  // The server side of the TLS handshake; only when is_tls().
  template <class Handler>
  void async_handshake(Handler&& handler) {
    std::visit(
        [&](auto& s) {
          using S = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<S, TlsTcp> || std::is_same_v<S, TlsUnix>) {
            s.async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
          }
        },
        v_);
  }

  // TLS only: sends close_notify, then completes when the peer answers or closes (bound it).
  template <class Handler>
  void async_shutdown(Handler&& handler) {
    std::visit(
        [&](auto& s) {
          using S = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<S, TlsTcp> || std::is_same_v<S, TlsUnix>) {
            s.async_shutdown(std::forward<Handler>(handler));
          }
        },
        v_);
  }

  // Ends sending (TCP FIN, no close_notify) / cancels pending operations (they end with
  // operation_aborted) / closes the socket. Errors are ignored: the peer may be gone.
  void ShutdownSend();
  void Cancel();
  void Close();

 private:
  using TlsTcp = boost::asio::ssl::stream<Tcp>;
  using TlsUnix = boost::asio::ssl::stream<Unix>;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // before v_, which refers to it
  std::variant<Tcp, Unix, TlsTcp, TlsUnix> v_;
};

}  // namespace gemmad::server
