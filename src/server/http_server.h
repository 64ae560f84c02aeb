// HttpServer: the HTTP/1.1 transport (Boost.Beast/Asio, docs/adr/003-http-library.md). Few I/O
// threads multiplex every connection; each request's Handler runs on a WorkerPool thread and
// answers through a Responder, which posts bytes back to the connection. While a request is in
// flight the connection keeps reading, so a client that disconnects is noticed at once
// (Responder::client_gone, OnClientGone) even mid-stream.
// Shutdown: StopAccepting (and close idle keep-alive connections), WaitIdle (in-flight
// exchanges finish), Stop.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "base/result.h"
#include "server/http_types.h"

namespace gemmad::server {

// TLS as uvicorn configures it (--ssl-certfile, --ssl-keyfile, --ssl-ca-certs, --ssl-cert-reqs,
// --ssl-ciphers) and vLLM's --enable-ssl-refresh; see tls_context.h, tls_refresh.h.
struct TlsOptions {
  std::string certfile;  // empty: no TLS
  std::string keyfile;   // empty: the key is in certfile
  std::string ca_certs;  // CA file that client certificates are verified against
  int cert_reqs = 0;     // Python's ssl.CERT_NONE (0), CERT_OPTIONAL (1), CERT_REQUIRED (2)
  std::string ciphers;   // OpenSSL cipher list (TLS <= 1.2); empty: OpenSSL's defaults
  bool refresh = false;  // reload the context for new connections after the files change
  std::chrono::milliseconds refresh_interval{1000};  // at most one look at the files this often
  bool enabled() const { return !certfile.empty(); }
};

struct HttpServerOptions {
  std::string host = "0.0.0.0";
  int port = 8000;  // 0: pick a free port (see HttpServer::port)
  std::string uds;  // --uds: listen on this Unix domain socket path instead of host/port
  TlsOptions tls;
  std::chrono::milliseconds tls_handshake_timeout{60000};  // asyncio's ssl_handshake_timeout
  int num_io_threads = 1;
  size_t max_handler_threads = 1024;
  size_t max_body_bytes = size_t{256} << 20;
  // h11's limits as vLLM sets them (--h11-max-incomplete-event-size, --h11-max-header-count): a
  // request line plus headers larger, or more header fields, get uvicorn's 400 and a close.
  size_t max_header_bytes = size_t{4} << 20;
  size_t max_header_count = 256;
  std::chrono::milliseconds keep_alive_timeout{5000};  // uvicorn's default; also bounds a request's headers
  std::chrono::milliseconds body_timeout{60000};       // a request's body, from the end of its headers
  // Responder writes block while this many bytes wait for a slow client.
  size_t max_buffered_bytes = size_t{4} << 20;
};

class HttpServer {
 public:
  // Binds and starts serving. Errors name the address ("cannot bind 0.0.0.0:8000: ...",
  // "cannot bind unix:/run/x.sock: ...") or the TLS file that could not be loaded.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options, Handler handler);
  virtual ~HttpServer() = default;

  virtual int port() const = 0;  // 0 on a Unix domain socket
  // Stops accepting connections and closes connections that have no request in flight;
  // in-flight exchanges continue, and their connections close when they end.
  virtual void StopAccepting() = 0;
  // Waits until no exchange is in flight or `deadline` passes; true when idle.
  virtual bool WaitIdle(std::chrono::steady_clock::time_point deadline) = 0;
  // Closes every connection, stops the I/O threads and joins the handler threads.
  virtual void Stop() = 0;
  virtual size_t num_in_flight() const = 0;
};

}  // namespace gemmad::server
