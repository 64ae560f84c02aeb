// MakeTlsContext (see tls_context.h).
#include "server/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fmt/format.h>

namespace gemmad::server {
namespace {

// The oldest queued OpenSSL error as text, and the queue cleared.
std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

int NoPassword(char*, int, int, void*) { return 0; }

}  // namespace

Result<std::shared_ptr<boost::asio::ssl::context>> MakeTlsContext(const TlsOptions& o) {
  if (o.cert_reqs < 0 || o.cert_reqs > 2) {
    return InvalidArgumentError(fmt::format("--ssl-cert-reqs {}: must be 0 (none), 1 (optional) or 2 (required)",
                                            o.cert_reqs));
  }
  auto ctx = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  SSL_CTX* c = ctx->native_handle();
  ERR_clear_error();
  SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION);  // Python's PROTOCOL_TLS_SERVER minimum
  SSL_CTX_set_options(c, SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_default_passwd_cb(c, &NoPassword);
  if (SSL_CTX_use_certificate_chain_file(c, o.certfile.c_str()) != 1) {
    return InvalidArgumentError(fmt::format("--ssl-certfile {}: {}", o.certfile, OpenSslError()));
  }
  const std::string& key = o.keyfile.empty() ? o.certfile : o.keyfile;
  const char* key_flag = o.keyfile.empty() ? "--ssl-certfile" : "--ssl-keyfile";
  if (SSL_CTX_use_PrivateKey_file(c, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    return InvalidArgumentError(fmt::format("{} {}: {}", key_flag, key, OpenSslError()));
  }
  if (SSL_CTX_check_private_key(c) != 1) {
    return InvalidArgumentError(fmt::format("{} {}: the key does not match the certificate: {}", key_flag, key,
                                            OpenSslError()));
  }
  if (!o.ca_certs.empty() && SSL_CTX_load_verify_locations(c, o.ca_certs.c_str(), nullptr) != 1) {
    return InvalidArgumentError(fmt::format("--ssl-ca-certs {}: {}", o.ca_certs, OpenSslError()));
  }
  if (!o.ciphers.empty() && SSL_CTX_set_cipher_list(c, o.ciphers.c_str()) != 1) {
    return InvalidArgumentError(fmt::format("--ssl-ciphers {}: {}", o.ciphers, OpenSslError()));
  }
  int mode = SSL_VERIFY_NONE;
  if (o.cert_reqs >= 1) mode = SSL_VERIFY_PEER;
  if (o.cert_reqs == 2) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  SSL_CTX_set_verify(c, mode, nullptr);
  // As CPython does: session resumption with client verification needs a session id context.
  static const unsigned char kSessionId[] = "gemmad";
  SSL_CTX_set_session_id_context(c, kSessionId, sizeof(kSessionId) - 1);
  return ctx;
}

}  // namespace gemmad::server
