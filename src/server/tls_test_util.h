// Test-only TLS helpers for server/ (header-only, included by *_test.cc): a self-signed
// certificate made with the openssl CLI (as the e2e tests do) and one request over TLS with an
// OpenSSL client.
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace gemmad::server::testing {

// key.pem and cert.pem in `dir`: a self-signed certificate for 127.0.0.1 whose subject is /CN=`cn`.
inline bool MakeCertificate(const std::filesystem::path& dir, const std::string& cn = "127.0.0.1") {
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + cn + " -keyout " +
                    (dir / "key.pem").string() + " -out " + (dir / "cert.pem").string() + " >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// One request over TLS on the connected socket `fd` (closed here) with an OpenSSL client that
// trusts `ca`; the raw response, or "" when the handshake failed.
// `clean_close`: set when the server ended the stream with a TLS close_notify.
// `peer_subject`: set to the server certificate's subject (OpenSSL's one-line form).
inline std::string TlsRoundTrip(int fd, const std::filesystem::path& ca, const std::string& request,
                                const std::filesystem::path& client_dir = {}, bool* clean_close = nullptr,
                                std::string* peer_subject = nullptr) {
  std::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(): a refused client must not die
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr);
  if (!client_dir.empty()) {  // the client presents the same self-signed certificate
    SSL_CTX_use_certificate_chain_file(ctx, (client_dir / "cert.pem").c_str());
    SSL_CTX_use_PrivateKey_file(ctx, (client_dir / "key.pem").c_str(), SSL_FILETYPE_PEM);
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  std::string out;
  if (SSL_connect(ssl) == 1) {
    if (peer_subject) {
      if (X509* cert = SSL_get_peer_certificate(ssl)) {
        char name[256];
        X509_NAME_oneline(X509_get_subject_name(cert), name, sizeof(name));
        *peer_subject = name;
        X509_free(cert);
      }
    }
    if (!request.empty()) SSL_write(ssl, request.data(), static_cast<int>(request.size()));
    char buf[4096];
    int n;
    while ((n = SSL_read(ssl, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    if (clean_close) *clean_close = SSL_get_error(ssl, n) == SSL_ERROR_ZERO_RETURN;
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ERR_clear_error();
  ::close(fd);
  return out;
}

}  // namespace gemmad::server::testing
