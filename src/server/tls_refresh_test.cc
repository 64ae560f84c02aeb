// --enable-ssl-refresh (TlsOptions::refresh): after the certificate and key files are replaced,
// the next handshake presents the new certificate; a reload that fails keeps the old one; without
// the flag the files are read once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "server/http_server.h"
#include "server/server_test_util.h"
#include "server/tls_test_util.h"

namespace gemmad::server {
namespace {

using namespace testing;  // NOLINT
namespace fs = std::filesystem;

struct Dirs {
  fs::path live, first, second;
};

// live/ holds what the server reads (a copy of first/); second/ is the replacement.
Dirs MakeDirs(const char* name) {
  fs::path root = fs::temp_directory_path() / ("gemmad_tlsrefresh_" + std::string(name) + "_" +
                                               std::to_string(::getpid()));
  fs::remove_all(root);
  Dirs d{root / "live", root / "first", root / "second"};
  for (const auto& p : {d.live, d.first, d.second}) fs::create_directories(p);
  EXPECT_TRUE(MakeCertificate(d.first, "first.test"));
  EXPECT_TRUE(MakeCertificate(d.second, "second.test"));
  fs::copy_file(d.first / "key.pem", d.live / "key.pem");
  fs::copy_file(d.first / "cert.pem", d.live / "cert.pem");
  return d;
}

// Replaces live/`name` with `from` as a deployment tool does (write beside, rename over).
void Replace(const fs::path& from, const fs::path& live, const char* name) {
  fs::copy_file(from, live / (std::string(name) + ".tmp"), fs::copy_options::overwrite_existing);
  fs::rename(live / (std::string(name) + ".tmp"), live / name);
}

std::unique_ptr<HttpServer> StartTls(const fs::path& live, bool refresh) {
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.port = 0;
  options.tls.certfile = (live / "cert.pem").string();
  options.tls.keyfile = (live / "key.pem").string();
  options.tls.refresh = refresh;
  options.tls.refresh_interval = std::chrono::milliseconds(100);
  auto s = HttpServer::Start(options, [](HttpRequest r, std::shared_ptr<Responder> out) {
    out->Send(200, "text/plain", r.path);
  });
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// The subject of the certificate the server presents, with the client trusting `ca`; "" when the
// handshake failed; `ok` set when the request was answered 200.
std::string Subject(const HttpServer& server, const fs::path& ca, bool* ok = nullptr) {
  std::string subject;
  std::string resp = TlsRoundTrip(Connect(server.port()), ca, "GET /r HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                                  {}, nullptr, &subject);
  if (ok) *ok = resp.rfind("HTTP/1.1 200 OK\r\n", 0) == 0;
  return subject;
}

TEST(TlsRefreshTest, NextHandshakeSeesTheReplacedCertificate) {
  Dirs d = MakeDirs("on");
  auto server = StartTls(d.live, true);
  ASSERT_TRUE(server);
  bool ok = false;
  EXPECT_EQ(Subject(*server, d.first / "cert.pem", &ok), "/CN=first.test");
  EXPECT_TRUE(ok);
  Replace(d.second / "key.pem", d.live, "key.pem");
  Replace(d.second / "cert.pem", d.live, "cert.pem");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  ok = false;
  EXPECT_EQ(Subject(*server, d.second / "cert.pem", &ok), "/CN=second.test");
  EXPECT_TRUE(ok);
  // A broken certificate file: the reload fails, the previous certificate stays in service.
  {
    std::ofstream(d.live / "cert.pem.tmp") << "not a certificate\n";
    fs::rename(d.live / "cert.pem.tmp", d.live / "cert.pem");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(Subject(*server, d.second / "cert.pem", &ok), "/CN=second.test");
  EXPECT_TRUE(ok);
  // Fixed again (the first pair): picked up.
  Replace(d.first / "key.pem", d.live, "key.pem");
  Replace(d.first / "cert.pem", d.live, "cert.pem");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(Subject(*server, d.first / "cert.pem"), "/CN=first.test");
  server->Stop();
  fs::remove_all(d.live.parent_path());
}

TEST(TlsRefreshTest, WithoutTheFlagTheFilesAreReadOnce) {
  Dirs d = MakeDirs("off");
  auto server = StartTls(d.live, false);
  ASSERT_TRUE(server);
  Replace(d.second / "key.pem", d.live, "key.pem");
  Replace(d.second / "cert.pem", d.live, "cert.pem");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(Subject(*server, d.first / "cert.pem"), "/CN=first.test");
  server->Stop();
  fs::remove_all(d.live.parent_path());
}

}  // namespace
}  // namespace gemmad::server
