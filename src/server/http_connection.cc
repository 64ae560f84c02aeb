// Connection and ConnectionResponder (see http_connection.h).
#include "server/http_connection.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "base/log.h"
#include "server/error_map.h"
#include "server/http_wire.h"

namespace gemmad::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpRequest ToHttpRequest(http::request<http::string_body>&& msg) {
  HttpRequest r;
  r.method = std::string(msg.method_string());
  r.target = std::string(msg.target());
  r.path = r.target.substr(0, r.target.find('?'));
  for (const auto& field : msg) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    r.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  r.keep_alive = msg.keep_alive();
  r.body = std::move(msg.body());
  r.arrival = std::chrono::steady_clock::now();
  return r;
}


std::string_view HttpRequest::Header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return value;
  }
  return {};
}

void RequestParser::on_field_impl(http::field name, beast::string_view name_string, beast::string_view value,
                                  beast::error_code& ec) {
  // Beast's basic_fields stores sizes as uint16_t and throws std::length_error past them.
  constexpr size_t kBeastFieldMax = std::numeric_limits<std::uint16_t>::max() - 2;
  if (++num_fields_ > max_fields_ || name_string.size() > kBeastFieldMax || value.size() > kBeastFieldMax) {
    ec = http::error::bad_field;
    return;
  }
  get().insert(name, name_string, value);
}

Connection::Connection(std::unique_ptr<ConnStream> stream, ConnectionOwner& owner)
    : stream_(std::move(stream)),
      strand_(stream_->get_executor()),
      owner_(owner),
      idle_timer_(strand_),
      body_timer_(strand_) {}

Connection::~Connection() { owner_.Forget(this); }

void Connection::Start() {
  asio::dispatch(strand_, [self = shared_from_this()] {
    if (self->stream_->is_tls()) return self->Handshake();
    self->ReadHeader();
  });
}

// A failed handshake (plain HTTP sent to a TLS port, an untrusted client certificate) closes the
// connection without an answer, as uvicorn does; one that never completes is cut by the timer.
void Connection::Handshake() {
  handshaking_ = true;
  idle_timer_.expires_after(owner_.options().tls_handshake_timeout);
  idle_timer_.async_wait(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec) {
    if (!ec && self->handshaking_) self->Closed();  // an expiry queued as the handshake ended is stale
  }));
  stream_->async_handshake(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec) {
    self->handshaking_ = false;
    self->idle_timer_.cancel();
    if (ec || self->closed_) return self->Closed();
    self->ReadHeader();
  }));
}

// A Beast parse error: the bytes are not HTTP (bad request line, header, chunk). End of stream
// and a message cut short by a disconnect are not: nobody is left to answer.
static bool IsMalformed(const beast::error_code& ec) {
  return ec.category() == beast::http::make_error_code(http::error::bad_method).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

void Connection::ReadHeader() {
  if (closed_ || reading_) return;
  parser_.emplace(owner_.options().max_header_count);
  parser_->header_limit(static_cast<std::uint32_t>(std::min<size_t>(owner_.options().max_header_bytes, UINT32_MAX)));
  parser_->body_limit(owner_.options().max_body_bytes);
  reading_ = true;
  if (!in_exchange_) ArmIdleTimer();
  http::async_read_header(*stream_, buffer_, *parser_,
                          asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec, size_t) {
                            self->OnHeader(ec);
                          }));
}

void Connection::ArmIdleTimer() {
  idle_timer_.expires_after(owner_.options().keep_alive_timeout);
  idle_timer_.async_wait(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec) {
    if (ec || self->in_exchange_ || self->closed_ || self->tls_closing_) return;
    if (self->stream_->is_tls()) return self->CloseTls();  // close_notify, as after a last response
    self->Closed();
  }));
}

void Connection::OnHeader(beast::error_code ec) {
  if (tls_closing_) {
    reading_ = false;
    return SendCloseNotify();
  }
  if (ec) {
    reading_ = false;
    // h11's "Receive buffer too long" (--h11-max-incomplete-event-size): uvicorn answers its 400.
    if (ec == http::error::header_limit) return WriteAndClose(InvalidRequestResponse());
    if (ec == http::error::body_limit) return RejectAndClose(413, "Request body too large");
    if (IsMalformed(ec)) return WriteAndClose(InvalidRequestResponse());
    return Closed();
  }
  idle_timer_.cancel();
  // A client that trickles its body (or never sends it) must not hold the connection for ever.
  body_timer_.expires_after(owner_.options().body_timeout);
  body_timer_.async_wait(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code tec) {
    if (!tec && self->reading_ && !self->closed_) self->RejectAndClose(408, "Request body timed out");
  }));
  if (parser_->get()[http::field::expect] == "100-continue" && !in_exchange_) {
    // curl waits for this before sending a body larger than 1 KiB.
    auto bytes = std::make_shared<std::string>("HTTP/1.1 100 Continue\r\n\r\n");
    asio::async_write(*stream_, asio::buffer(*bytes),
                      asio::bind_executor(strand_, [self = shared_from_this(), bytes](beast::error_code wec, size_t) {
                        if (wec) return self->Closed();
                        self->ReadBody();
                      }));
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  http::async_read(*stream_, buffer_, *parser_,
                   asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec, size_t) {
                     self->OnBody(ec);
                   }));
}

void Connection::OnBody(beast::error_code ec) {
  reading_ = false;
  body_timer_.cancel();
  if (tls_closing_) return SendCloseNotify();
  if (ec == http::error::body_limit) return RejectAndClose(413, "Request body too large");
  if (IsMalformed(ec)) return WriteAndClose(InvalidRequestResponse());
  if (ec) return Closed();
  HttpRequest request = ToHttpRequest(parser_->release());
  parser_.reset();
  if (in_exchange_) {
    stashed_ = std::move(request);  // pipelined: answer after the current exchange
    return;
  }
  StartExchange(std::move(request));
}

void Connection::StartExchange(HttpRequest request) {
  if (owner_.stopping()) close_after_exchange_ = true;
  in_exchange_ = true;
  owner_.ExchangeStarted();
  responder_ = std::make_shared<ConnectionResponder>(shared_from_this(), strand_,
                                                     request.keep_alive && !close_after_exchange_,
                                                     owner_.options().max_buffered_bytes);
  owner_.Dispatch(std::move(request), responder_);
  // Keep reading: a pipelined request is stashed, a disconnect is noticed mid-exchange.
  ReadHeader();
}

void Connection::Enqueue(std::string bytes, bool ends_exchange) {
  if (closed_) {
    if (responder_) responder_->Written(bytes.size());
    if (ends_exchange) OnExchangeWritten();
    return;
  }
  write_queue_.emplace_back(std::move(bytes), ends_exchange);
  if (!writing_) WriteNext();
}

void Connection::WriteNext() {
  if (write_queue_.empty() || closed_) {
    writing_ = false;
    return;
  }
  writing_ = true;
  // The bytes in flight live in current_write_, so Closed() may clear the queue meanwhile.
  current_write_ = std::move(write_queue_.front().first);
  current_ends_ = write_queue_.front().second;
  write_queue_.pop_front();
  asio::async_write(*stream_, asio::buffer(current_write_),
                    asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec, size_t) {
                      bool ends = self->current_ends_;
                      if (self->responder_) self->responder_->Written(self->current_write_.size());
                      self->current_write_.clear();
                      if (ec) {
                        self->writing_ = false;
                        self->Closed();
                        if (ends) self->OnExchangeWritten();
                        return;
                      }
                      if (ends) self->OnExchangeWritten();
                      self->WriteNext();
                    }));
}

void Connection::OnExchangeWritten() {
  if (!in_exchange_) return;
  bool keep = responder_ && responder_->keep_alive() && !close_after_exchange_ && !owner_.stopping();
  in_exchange_ = false;
  responder_.reset();
  owner_.ExchangeEnded();
  if (closed_) return;
  if (!keep) {
    if (stream_->is_tls()) return CloseTls();
    stream_->ShutdownSend();
    return CloseNow();
  }
  if (stashed_) {
    HttpRequest next = std::move(*stashed_);
    stashed_.reset();
    return StartExchange(std::move(next));
  }
  if (reading_) {
    ArmIdleTimer();
  } else {
    ReadHeader();
  }
}

// As asyncio's TLS transport does on close: a close_notify, so that a client reading to the end
// of the stream sees a clean end. A peer that neither answers nor closes is cut after a second.
void Connection::CloseTls() {
  tls_closing_ = true;
  idle_timer_.expires_after(std::chrono::seconds(1));
  idle_timer_.async_wait(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code ec) {
    if (!ec) self->Closed();
  }));
  if (!reading_) return SendCloseNotify();
  stream_->Cancel();  // the pending read ends with operation_aborted, then OnHeader/OnBody send it
}

void Connection::SendCloseNotify() {
  if (closed_) return;
  stream_->async_shutdown(asio::bind_executor(strand_, [self = shared_from_this()](beast::error_code) {
    self->Closed();
  }));
}

void Connection::RejectAndClose(int status, std::string detail) {
  close_after_exchange_ = true;
  std::string body = "{\"detail\":\"" + detail + "\"}";
  WriteAndClose(ResponseHead(status, "application/json", static_cast<long long>(body.size()), false, {}) + body);
}

void Connection::WriteAndClose(std::string bytes) {
  close_after_exchange_ = true;
  if (in_exchange_) return CloseNow();
  in_exchange_ = true;
  owner_.ExchangeStarted();
  Enqueue(std::move(bytes), true);
}

void Connection::Closed() {
  if (closed_) return;
  closed_ = true;
  idle_timer_.cancel();
  body_timer_.cancel();
  stream_->Close();
  if (responder_) responder_->MarkGone();
  bool queued_end = false;
  for (const auto& [bytes, ends] : write_queue_) queued_end |= ends;
  write_queue_.clear();
  // An exchange whose last bytes were queued (not in flight) ends here; one in flight ends in
  // its write completion; one not yet answered ends when the handler answers (Enqueue).
  if (in_exchange_ && queued_end) OnExchangeWritten();
}

void Connection::CloseNow() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->Closed(); });
}

void Connection::CloseWhenIdle() {
  asio::dispatch(strand_, [self = shared_from_this()] {
    self->close_after_exchange_ = true;
    if (!self->in_exchange_) self->Closed();
  });
}

// --- ConnectionResponder -------------------------------------------------------------------

ConnectionResponder::ConnectionResponder(std::shared_ptr<Connection> connection, asio::any_io_executor strand,
                                         bool keep_alive, size_t max_buffered_bytes)
    : connection_(std::move(connection)), strand_(std::move(strand)), keep_alive_(keep_alive),
      max_buffered_(max_buffered_bytes) {}

void ConnectionResponder::Post(std::string bytes, bool ends_exchange) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    buffered_ += bytes.size();
    if (ends_exchange) ended_ = true;
  }
  asio::post(strand_, [c = connection_, bytes = std::move(bytes), ends_exchange]() mutable {
    c->Enqueue(std::move(bytes), ends_exchange);
  });
}

void ConnectionResponder::AddHeader(std::string name, std::string value) {
  std::lock_guard<std::mutex> lock(mu_);
  extra_headers_.emplace_back(std::move(name), std::move(value));
}

void ConnectionResponder::Send(int status, std::string_view content_type, std::string body, const Headers& extra) {
  Headers headers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_ || started_) return;
    headers = extra_headers_;
  }
  headers.insert(headers.end(), extra.begin(), extra.end());
  std::string bytes = ResponseHead(status, content_type, static_cast<long long>(body.size()), keep_alive_, headers);
  bytes += body;
  Post(std::move(bytes), true);
}

void ConnectionResponder::SendJson(std::string body) { Send(200, "application/json", std::move(body), {}); }
void ConnectionResponder::SendText(std::string content_type, std::string body) {
  Send(200, content_type, std::move(body), {});
}

void ConnectionResponder::SendError(const api::ApiError& error) {
  bool started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return;
    started = started_;
  }
  if (!started) {
    ErrorResponse r = MapError(error);
    return Send(r.status, "application/json", std::move(r.body), {});
  }
  Post(Chunk(SseEvent(StreamErrorPayload(error))) + Chunk(SseEvent("[DONE]")) + LastChunk(), true);
}

bool ConnectionResponder::SendEvent(std::string json) { return SendFramed(SseEvent(json)); }

bool ConnectionResponder::SendTypedEvent(std::string type, std::string json) {
  return SendFramed(TypedSseEvent(type, json));
}

bool ConnectionResponder::SendFramed(std::string framed) {
  std::string bytes;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (ended_) return false;
    // Backpressure: a slow reader blocks the handler instead of growing memory.
    drained_.wait(lock, [&] { return buffered_ < max_buffered_ || gone_.load(); });
    if (gone_.load()) return false;
    if (!started_) {
      started_ = true;
      bytes = ResponseHead(200, "text/event-stream; charset=utf-8", -1, keep_alive_, extra_headers_);
    }
  }
  bytes += Chunk(framed);
  Post(std::move(bytes), false);
  return !client_gone();
}

void ConnectionResponder::EndStream() { EndWith(Chunk(SseEvent("[DONE]")) + LastChunk()); }
void ConnectionResponder::EndTypedStream() { EndWith(LastChunk()); }

void ConnectionResponder::EndWith(std::string last_bytes) {
  std::string bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return;
    if (!started_) {
      started_ = true;
      bytes = ResponseHead(200, "text/event-stream; charset=utf-8", -1, keep_alive_, extra_headers_);
    }
  }
  bytes += last_bytes;
  Post(std::move(bytes), true);
}

void ConnectionResponder::OnClientGone(std::function<void()> callback) {
  bool run_now = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gone_.load()) {
      run_now = true;
    } else {
      on_gone_ = std::move(callback);
    }
  }
  if (run_now && callback) callback();
}

void ConnectionResponder::MarkGone() {
  std::function<void()> callback;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gone_.exchange(true)) return;
    if (!ended_) callback = std::move(on_gone_);
    on_gone_ = nullptr;
  }
  drained_.notify_all();
  if (callback) callback();
}

void ConnectionResponder::Written(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    buffered_ -= std::min(buffered_, bytes);
  }
  drained_.notify_all();
}

void ConnectionResponder::Abandon() {
  bool started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return;
    started = started_;
  }
  if (client_gone()) return Post("", true);
  GEMMAD_LOG_ERROR("a handler returned without answering; closing the exchange");
  if (started) return Post(LastChunk(), true);
  Send(500, "application/json", "{\"error\":{\"message\":\"Internal server error\",\"type\":\"InternalServerError\",\"param\":null,\"code\":500}}", {});
}

bool ConnectionResponder::ended() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ended_;
}

}  // namespace gemmad::server
