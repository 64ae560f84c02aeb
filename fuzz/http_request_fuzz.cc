// Fuzz target: arbitrary bytes as what a client sends on one connection. Beast's HTTP/1.1 parser
// reads requests with the server's header and body limits, each complete one becomes an
// HttpRequest (server/http_connection.h) and goes through the real Router with every API route
// (auth, content-type checks, the OpenAI handlers over an engine double). Must never crash, hang
// or abort; parse errors and 4xx answers are fine.
// gemmad-fuzz-libs: gemmad_server gemmad_api gemmad_tokenizer gemmad_template
#include <cstddef>
#include <cstdint>
#include <string>

#include <boost/beast/http/parser.hpp>

#include "api_fuzz_common.h"
#include "server/api_server.h"
#include "server/http_connection.h"
#include "server/router.h"
#include "server/server_test_util.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gemmad;  // NOLINT
  if (size > 16384) return 0;
  auto engine = fuzz::MakeEngine();
  api::ServingContext ctx = fuzz::BaseContext();
  ctx.engine = engine.get();
  server::RouterOptions options;
  if (size > 0 && data[0] % 2 == 1) options.api_keys = {"secret-key"};
  options.enable_request_id_headers = size > 1 && data[1] % 2 == 1;
  server::Router router(options);
  server::AddApiRoutes(router, ctx, "fuzz");
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (int requests = 0; requests < 4 && !rest.empty(); ++requests) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(8192);
    parser.eager(true);
    boost::beast::error_code ec;
    size_t used = 0;
    while (!ec && !parser.is_done()) {
      const size_t n = parser.put(boost::asio::buffer(rest.data() + used, rest.size() - used), ec);
      used += n;
      // need_more: Beast expects the next put to bring new bytes (it asserts on a buffer it has
      // already scanned); there are none, so the client has closed: a request without its end is
      // dropped, as the server does.
      if (ec == http::error::need_more) {
        ec = {};
        parser.put_eof(ec);
        break;
      }
      if (ec || parser.is_done()) break;
      if (n == 0) return 0;  // no progress on what is left
    }
    if (ec || !parser.is_done()) return 0;
    rest.remove_prefix(used);
    server::HttpRequest request = server::ToHttpRequest(parser.release());
    server::testing::RecordingResponder responder;
    router.Handle(request, responder);
  }
  return 0;
}
