// Serving: everything `gemmad serve` starts (model, engine, OpenAI API context, HTTP server, stats
// logger) as one object, and its graceful shutdown. `gemmad serve` runs it until a signal;
// `gemmad run` runs it on a loopback port and chats with it.
#pragma once

#include <memory>
#include <optional>

#include "api/serving_context.h"
#include "base/result.h"
#include "cli/model_engine.h"
#include "cli/serve_model.h"
#include "cli/serve_options.h"
#include "dist/communicator.h"
#include "cli/serve_stats_logger.h"
#include "server/api_server.h"

namespace gemmad::cli {

struct Serving {
  ServeModel model;
  ModelEngine engine;
  std::unique_ptr<api::ServingContext> ctx;  // stable address: the HTTP server refers to it
  std::unique_ptr<server::ApiServer> http;
  std::unique_ptr<StatsLogger> stats;

  int port() const { return http->port(); }
  // Stops accepting, lets in-flight requests finish for `grace_s`, aborts the rest, stops.
  void Shutdown(double grace_s);
};

// Why StartServing failed: `usage` = bad input the user should fix (the model path, its files,
// the generation config: printed with the usage line, exit code 2); else a startup error that
// is logged, with exit code 2 for kInvalidArgument (e.g. max_model_len beyond the KV budget)
// and 1 otherwise. The message is one line.
struct StartFailure {
  Status status;
  bool usage = false;
  int exit_code() const { return usage || status.code() == StatusCode::kInvalidArgument ? 2 : 1; }
};

// Loads the model and starts engine and HTTP server for `o`; nullptr (and *failure) on error.
// communicator: rank 0 of a tensor-parallel group (cli/tensor_parallel.h); null: one process.
std::unique_ptr<Serving> StartServing(const ServeOptions& o, StartFailure* failure,
                                      std::shared_ptr<dist::Communicator> communicator = nullptr);

}  // namespace gemmad::cli
