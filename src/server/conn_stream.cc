// ConnStream (see conn_stream.h).
#include "server/conn_stream.h"

namespace gemmad::server {
namespace {

template <class Socket>
Socket& Lowest(Socket& s) {
  return s;
}
template <class Socket>
Socket& Lowest(boost::asio::ssl::stream<Socket>& s) {
  return s.next_layer();
}

}  // namespace

ConnStream::ConnStream(Tcp socket, std::shared_ptr<boost::asio::ssl::context> tls)
    : tls_(std::move(tls)),
      v_(tls_ ? decltype(v_)(std::in_place_type<TlsTcp>, std::move(socket), *tls_)
             : decltype(v_)(std::in_place_type<Tcp>, std::move(socket))) {}

ConnStream::ConnStream(Unix socket, std::shared_ptr<boost::asio::ssl::context> tls)
    : tls_(std::move(tls)),
      v_(tls_ ? decltype(v_)(std::in_place_type<TlsUnix>, std::move(socket), *tls_)
             : decltype(v_)(std::in_place_type<Unix>, std::move(socket))) {}

void ConnStream::ShutdownSend() {
  std::visit(
      [](auto& s) {
        boost::system::error_code ignored;
        auto& sock = Lowest(s);
        sock.shutdown(std::decay_t<decltype(sock)>::shutdown_send, ignored);
      },
      v_);
}

void ConnStream::Cancel() {
  std::visit(
      [](auto& s) {
        boost::system::error_code ignored;
        Lowest(s).cancel(ignored);
      },
      v_);
}

void ConnStream::Close() {
  std::visit(
      [](auto& s) {
        boost::system::error_code ignored;
        Lowest(s).close(ignored);
      },
      v_);
}

}  // namespace gemmad::server
