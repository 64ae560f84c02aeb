// MakeTlsContext: the server's TLS context from TlsOptions, as uvicorn builds it
// (ssl.SSLContext(PROTOCOL_TLS_SERVER), load_cert_chain, verify_mode = cert_reqs,
// load_verify_locations(ca_certs), set_ciphers). Internal to server/ (includes Boost.Asio SSL).
// Errors are InvalidArgument naming the flag and OpenSSL's reason; an encrypted key file is an
// error (no flag carries a password, and OpenSSL must never prompt on the terminal).
#pragma once

#include <memory>

#include <boost/asio/ssl/context.hpp>

#include "base/result.h"
#include "server/http_server.h"

namespace gemmad::server {

Result<std::shared_ptr<boost::asio::ssl::context>> MakeTlsContext(const TlsOptions& options);

}  // namespace gemmad::server
