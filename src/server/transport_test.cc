// HttpServer transports over real sockets: uvicorn's 400 for bytes that are not HTTP, a Unix
// domain socket (--uds), TLS (a certificate made with the openssl CLI; an OpenSSL client), plain
// HTTP sent to a TLS port and a handshake that never comes (closed, bounded), bad TLS files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "server/http_server.h"
#include "server/server_test_util.h"
#include "server/tls_test_util.h"

namespace gemmad::server {
namespace {

using namespace testing;  // NOLINT
namespace fs = std::filesystem;

const char kUvicorn400[] =
    "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
    "Invalid HTTP request received.";

Handler Echo() {
  return [](HttpRequest r, std::shared_ptr<Responder> out) { out->Send(200, "text/plain", r.method + " " + r.path); };
}

std::unique_ptr<HttpServer> Start(HttpServerOptions options) {
  options.host = "127.0.0.1";
  options.port = 0;
  auto s = HttpServer::Start(options, Echo());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

fs::path TempDir(const char* name) {
  fs::path dir = fs::temp_directory_path() / ("gemmad_transport_" + std::string(name) + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(TransportTest, MalformedRequestsGetUvicorns400AndAClose) {
  auto server = Start({});
  ASSERT_TRUE(server);
  EXPECT_EQ(RoundTrip(server->port(), "GARBAGE\r\n\r\n"), kUvicorn400);
  EXPECT_EQ(RoundTrip(server->port(), "GET / HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n"), kUvicorn400);
  EXPECT_EQ(RoundTrip(server->port(), "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            kUvicorn400);
  // The server still serves.
  std::string ok = RoundTrip(server->port(), "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << ok;
}

int ConnectUnix(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(TransportTest, ServesOnAUnixSocket) {
  fs::path dir = TempDir("uds");
  HttpServerOptions options;
  options.uds = (dir / "s.sock").string();
  auto server = Start(options);
  ASSERT_TRUE(server);
  EXPECT_EQ(server->port(), 0);
  int fd = ConnectUnix(options.uds);
  ASSERT_GE(fd, 0);
  SendAll(fd, "GET /v1/models HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  std::string resp = ReadAll(fd);
  ::close(fd);
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  EXPECT_NE(resp.find("GET /v1/models"), std::string::npos);
  // vLLM binds the path as it is: a second server on it fails, naming it.
  auto second = HttpServer::Start(options, Echo());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot bind unix:" + options.uds), std::string::npos);
  server->Stop();
  EXPECT_FALSE(fs::exists(options.uds));  // gemmad removes the socket it created
  options.uds = (dir / std::string(200, 'a')).string();
  EXPECT_FALSE(HttpServer::Start(options, Echo()).ok());  // longer than sun_path: an error, not a throw
  fs::remove_all(dir);
}

TEST(TransportTest, TlsServesAndRefusesPlainHttpAndSilentClients) {
  fs::path dir = TempDir("tls");
  ASSERT_TRUE(MakeCertificate(dir));
  HttpServerOptions options;
  options.tls.certfile = (dir / "cert.pem").string();
  options.tls.keyfile = (dir / "key.pem").string();
  options.tls_handshake_timeout = std::chrono::milliseconds(300);
  auto server = Start(options);
  ASSERT_TRUE(server);
  bool clean = false;
  std::string resp = TlsRoundTrip(Connect(server->port()), dir / "cert.pem",
                                  "GET /secure HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", {}, &clean);
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  EXPECT_NE(resp.find("GET /secure"), std::string::npos);
  EXPECT_TRUE(clean);  // close_notify after the last response
  // uvicorn's 400 over TLS too, ended by close_notify (its body runs to the end of the stream).
  clean = false;
  EXPECT_EQ(TlsRoundTrip(Connect(server->port()), dir / "cert.pem", "GARBAGE\r\n\r\n", {}, &clean), kUvicorn400);
  EXPECT_TRUE(clean);
  // Plain HTTP to the TLS port: closed, no HTTP answer, no hang.
  std::string plain = RoundTrip(server->port(), "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  EXPECT_EQ(plain.find("HTTP/1.1"), std::string::npos) << plain;
  // A client that connects and never starts the handshake is closed after the timeout.
  int fd = Connect(server->port());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ReadAll(fd, 5000), "");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  ::close(fd);
  server->Stop();
  fs::remove_all(dir);
}

TEST(TransportTest, TlsOverAUnixSocket) {
  fs::path dir = TempDir("tlsuds");
  ASSERT_TRUE(MakeCertificate(dir));
  HttpServerOptions options;
  options.uds = (dir / "s.sock").string();
  options.tls.certfile = (dir / "cert.pem").string();
  options.tls.keyfile = (dir / "key.pem").string();
  auto server = Start(options);
  ASSERT_TRUE(server);
  std::string resp = TlsRoundTrip(ConnectUnix(options.uds), dir / "cert.pem",
                                  "GET /u HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  server->Stop();
  fs::remove_all(dir);
}

TEST(TransportTest, ClientCertificateRequired) {
  fs::path dir = TempDir("mtls");
  ASSERT_TRUE(MakeCertificate(dir));
  HttpServerOptions options;
  options.tls.certfile = (dir / "cert.pem").string();
  options.tls.keyfile = (dir / "key.pem").string();
  options.tls.ca_certs = (dir / "cert.pem").string();
  options.tls.cert_reqs = 2;
  auto server = Start(options);
  ASSERT_TRUE(server);
  // No client certificate: the handshake fails (TLS 1.3 reports it at the first read).
  std::string resp = TlsRoundTrip(Connect(server->port()), dir / "cert.pem", "GET / HTTP/1.1\r\nHost: a\r\n\r\n");
  EXPECT_EQ(resp.find("HTTP/1.1"), std::string::npos) << resp;
  // With a certificate the CA file trusts: served.
  resp = TlsRoundTrip(Connect(server->port()), dir / "cert.pem",
                      "GET /m HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", dir);
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  server->Stop();
  fs::remove_all(dir);
}

TEST(TransportTest, ClientCertificateOptional) {
  fs::path dir = TempDir("otls");
  fs::path other = TempDir("otls_other");
  ASSERT_TRUE(MakeCertificate(dir));
  ASSERT_TRUE(MakeCertificate(other));
  HttpServerOptions options;
  options.tls.certfile = (dir / "cert.pem").string();
  options.tls.keyfile = (dir / "key.pem").string();
  options.tls.ca_certs = (dir / "cert.pem").string();
  options.tls.cert_reqs = 1;
  auto server = Start(options);
  ASSERT_TRUE(server);
  const std::string request = "GET /o HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
  // Without a certificate: served; with a trusted one: served; with one the CA did not sign: refused.
  EXPECT_EQ(TlsRoundTrip(Connect(server->port()), dir / "cert.pem", request).rfind("HTTP/1.1 200 OK", 0), 0u);
  EXPECT_EQ(TlsRoundTrip(Connect(server->port()), dir / "cert.pem", request, dir).rfind("HTTP/1.1 200 OK", 0), 0u);
  EXPECT_EQ(TlsRoundTrip(Connect(server->port()), dir / "cert.pem", request, other), "");
  server->Stop();
  fs::remove_all(dir);
  fs::remove_all(other);
}

// vLLM's --h11-max-incomplete-event-size and --h11-max-header-count: a request over either gets
// uvicorn's 400 (h11 raises RemoteProtocolError) and a close; one at the limit is served.
TEST(HeaderLimitsTest, OverTheLimitsGetsUvicorns400) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  options.max_header_count = 3;
  auto server = Start(options);
  ASSERT_TRUE(server);
  const std::string big = "GET /b HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(1100, 'x') + "\r\n\r\n";
  EXPECT_EQ(RoundTrip(server->port(), big), kUvicorn400);
  const std::string fits =
      "GET /f HTTP/1.1\r\nHost: a\r\nX-Big: " + std::string(900, 'x') + "\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(RoundTrip(server->port(), fits).rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(RoundTrip(server->port(), "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"), kUvicorn400);
  std::string three = RoundTrip(server->port(), "GET /3 HTTP/1.1\r\nHost: a\r\nA: 1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(three.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << three;
  server->Stop();
}

// vLLM's defaults (4 MiB, 256 fields): 100 KB of headers are served; one field larger than Beast
// can store (64 KiB) gets uvicorn's 400, not a crash.
TEST(HeaderLimitsTest, DefaultsServeLargeHeadersAndRefuseAHugeField) {
  auto server = Start({});
  ASSERT_TRUE(server);
  std::string many = "GET /m HTTP/1.1\r\nHost: a\r\nConnection: close\r\n";
  for (int i = 0; i < 200; ++i) many += "X-" + std::to_string(i) + ": " + std::string(500, 'v') + "\r\n";
  std::string resp = RoundTrip(server->port(), many + "\r\n");
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp.substr(0, 200);
  EXPECT_EQ(RoundTrip(server->port(), "GET / HTTP/1.1\r\nHost: a\r\nX-Huge: " + std::string(70000, 'x') + "\r\n\r\n"),
            kUvicorn400);
  EXPECT_EQ(RoundTrip(server->port(), "GET / HTTP/1.1\r\nHost: a\r\n" + std::string(70000, 'n') + ": v\r\n\r\n"),
            kUvicorn400);
  resp = RoundTrip(server->port(), "GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  server->Stop();
}

// An idle TLS connection cut by the keep-alive timeout ends with close_notify, as after a last
// response (a client reading to the end of the stream sees a clean end, not a truncation).
TEST(TransportTest, IdleTlsConnectionGetsCloseNotify) {
  fs::path dir = TempDir("idletls");
  ASSERT_TRUE(MakeCertificate(dir));
  HttpServerOptions options;
  options.tls.certfile = (dir / "cert.pem").string();
  options.tls.keyfile = (dir / "key.pem").string();
  options.keep_alive_timeout = std::chrono::milliseconds(200);
  auto server = Start(options);
  ASSERT_TRUE(server);
  bool clean = false;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(TlsRoundTrip(Connect(server->port()), dir / "cert.pem", "", {}, &clean), "");
  EXPECT_TRUE(clean);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  // After a kept-alive exchange too.
  clean = false;
  std::string resp = TlsRoundTrip(Connect(server->port()), dir / "cert.pem", "GET /k HTTP/1.1\r\nHost: a\r\n\r\n",
                                  {}, &clean);
  EXPECT_EQ(resp.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << resp;
  EXPECT_TRUE(clean);
  server->Stop();
  fs::remove_all(dir);
}

TEST(TransportTest, BadTlsFilesAreStartupErrors) {
  fs::path dir = TempDir("badtls");
  ASSERT_TRUE(MakeCertificate(dir));
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.tls.certfile = (dir / "missing.pem").string();
  auto missing = HttpServer::Start(options, Echo());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--ssl-certfile " + options.tls.certfile), std::string::npos);
  options.tls.certfile = (dir / "cert.pem").string();  // no key in it, none given
  auto no_key = HttpServer::Start(options, Echo());
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.status().message().find("--ssl-certfile"), std::string::npos) << no_key.status().ToString();
  options.tls.keyfile = (dir / "key.pem").string();
  options.tls.ca_certs = (dir / "missing-ca.pem").string();
  auto ca = HttpServer::Start(options, Echo());
  ASSERT_FALSE(ca.ok());
  EXPECT_NE(ca.status().message().find("--ssl-ca-certs"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gemmad::server
