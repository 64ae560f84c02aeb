// Connection: one connection of the HTTP server over a ConnStream (TCP, Unix socket or TLS:
// conn_stream.h): TLS handshake (bounded by tls_handshake_timeout), Beast parser, write queue,
// keep-alive, disconnect watch, uvicorn's 400 for bytes that are not HTTP; and ConnectionResponder, the Responder handed to handlers. Internal to
// server/ (includes Boost); see http_server.h for the behaviour.
// Invariant: all Connection state is touched only on its strand; Responder methods may be
// called from any thread and post to that strand.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <utility>  // before Boost 1.74 Asio, whose awaitable.hpp needs std::exchange

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include "server/conn_stream.h"
#include "server/http_server.h"

namespace gemmad::server {

// A parsed Beast request as the handlers see it (lowercase header names, path without the query).
HttpRequest ToHttpRequest(boost::beast::http::request<boost::beast::http::string_body>&& msg);

// What a Connection needs from the server that owns it.
class ConnectionOwner {
 public:
  virtual ~ConnectionOwner() = default;
  virtual void Dispatch(HttpRequest request, std::shared_ptr<Responder> responder) = 0;
  virtual void ExchangeStarted() = 0;
  virtual void ExchangeEnded() = 0;
  virtual bool stopping() const = 0;
  virtual const HttpServerOptions& options() const = 0;
  virtual void Forget(class Connection* connection) = 0;
};

class ConnectionResponder;

// Beast's request parser, bounded as h11 is: more than `max_fields` header fields is a parse
// error (--h11-max-header-count). A field whose name or value Beast cannot store (64 KiB each;
// Beast would throw) is one too: uvicorn's 400, never a crash.
class RequestParser final : public boost::beast::http::request_parser<boost::beast::http::string_body> {
 public:
  explicit RequestParser(size_t max_fields) : max_fields_(max_fields) {}

 private:
  void on_field_impl(boost::beast::http::field name, boost::beast::string_view name_string,
                     boost::beast::string_view value, boost::beast::error_code& ec) override;
  size_t max_fields_;
  size_t num_fields_ = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::unique_ptr<ConnStream> stream, ConnectionOwner& owner);
  ~Connection();

  void Start();
  // Closes the connection now if no exchange is in flight, else after it (shutdown).
  void CloseWhenIdle();
  void CloseNow();

  // Called through the strand by ConnectionResponder.
  void Enqueue(std::string bytes, bool ends_exchange);

 private:
  void Handshake();
  void CloseTls();         // after a last response: close_notify, then close (bounded)
  void SendCloseNotify();
  void ReadHeader();
  void OnHeader(boost::beast::error_code ec);
  void ReadBody();
  void OnBody(boost::beast::error_code ec);
  void StartExchange(HttpRequest request);
  void OnExchangeWritten();
  void WriteNext();
  void ArmIdleTimer();
  void RejectAndClose(int status, std::string detail);
  void WriteAndClose(std::string bytes);  // an answer from the transport itself, then close
  void Closed();

  std::unique_ptr<ConnStream> stream_;
  boost::asio::any_io_executor strand_;  // the socket's executor: a strand
  ConnectionOwner& owner_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer body_timer_;  // a body must arrive within HttpServerOptions::body_timeout
  boost::beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  std::deque<std::pair<std::string, bool>> write_queue_;  // bytes, ends exchange
  std::string current_write_;  // bytes of the async_write in flight
  bool current_ends_ = false;
  bool writing_ = false;
  bool reading_ = false;
  bool in_exchange_ = false;
  bool close_after_exchange_ = false;
  bool closed_ = false;
  bool handshaking_ = false;
  bool tls_closing_ = false;  // CloseTls started: reads end, close_notify follows
  std::optional<HttpRequest> stashed_;  // a pipelined request waiting for the current one
  std::shared_ptr<ConnectionResponder> responder_;
};

class ConnectionResponder final : public Responder {
 public:
  ConnectionResponder(std::shared_ptr<Connection> connection, boost::asio::any_io_executor strand, bool keep_alive,
                      size_t max_buffered_bytes);

  void Send(int status, std::string_view content_type, std::string body, const Headers& extra) override;
  void AddHeader(std::string name, std::string value) override;
  void SendJson(std::string body) override;
  void SendText(std::string content_type, std::string body) override;
  void SendError(const api::ApiError& error) override;
  bool SendEvent(std::string json) override;
  void EndStream() override;
  bool SendTypedEvent(std::string type, std::string json) override;
  void EndTypedStream() override;
  bool client_gone() const override { return gone_.load(std::memory_order_acquire); }
  void OnClientGone(std::function<void()> callback) override;

  // Server / connection side.
  void MarkGone();
  void Written(size_t bytes);
  bool keep_alive() const { return keep_alive_; }
  bool ended() const;
  // Called after the handler returned: ends an exchange the handler left open (client gone,
  // or a handler bug: then a 500).
  void Abandon();

 private:
  void Post(std::string bytes, bool ends_exchange);
  // SendEvent / SendTypedEvent with the event's framed bytes.
  bool SendFramed(std::string framed);
  void EndWith(std::string last_bytes);

  std::shared_ptr<Connection> connection_;
  boost::asio::any_io_executor strand_;
  const bool keep_alive_;
  const size_t max_buffered_;
  std::atomic<bool> gone_{false};
  mutable std::mutex mu_;
  std::condition_variable drained_;
  size_t buffered_ = 0;
  bool started_ = false;  // stream headers sent
  bool ended_ = false;
  Headers extra_headers_;
  std::function<void()> on_gone_;
};

}  // namespace gemmad::server
