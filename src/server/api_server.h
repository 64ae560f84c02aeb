// ApiServer: the OpenAI-compatible HTTP server of `gemmad serve`: the transport, the router with
// vLLM's middleware, and every route (api.md §3): /v1/chat/completions, /v1/completions,
// /v1/models, /tokenize, /detokenize, /health, /ping, /version, /metrics.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "api/serving_context.h"
#include "base/result.h"
#include "server/http_server.h"
#include "server/router.h"

namespace gemmad::server {

struct ApiServerOptions {
  HttpServerOptions http;
  RouterOptions router;
  std::string version;  // GET /version
};

class ApiServer {
 public:
  // `ctx` (and its engine, tokenizer, run registry) must outlive the server.
  static Result<std::unique_ptr<ApiServer>> Start(const ApiServerOptions& options, const api::ServingContext& ctx);
  ~ApiServer();

  int port() const { return http_->port(); }
  // Graceful shutdown, driven by the caller (which also drains the engine): stop accepting,
  // wait for in-flight exchanges, stop. See HttpServer.
  void StopAccepting() { http_->StopAccepting(); }
  bool WaitIdle(std::chrono::steady_clock::time_point deadline) { return http_->WaitIdle(deadline); }
  void Stop() { http_->Stop(); }

 private:
  explicit ApiServer(std::unique_ptr<Router> router) : router_(std::move(router)) {}
  std::unique_ptr<Router> router_;
  std::unique_ptr<HttpServer> http_;
};

// Registers every route on `router` (exposed for tests).
void AddApiRoutes(Router& router, const api::ServingContext& ctx, std::string version);

}  // namespace gemmad::server
