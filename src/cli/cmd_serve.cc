// `gemmad serve [MODEL] [flags]`: vLLM's `vllm serve` — resolve and load the model, start the
// engine and the OpenAI-compatible HTTP server, serve until SIGTERM/SIGINT, then shut down
// gracefully (stop accepting, let in-flight requests finish within --shutdown-timeout, abort the
// rest, exit 0). Flags: serve_flags_*.cc; startup validation: serve_options.cc.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <memory>
#include <thread>

#include "base/log.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/serve_flags.h"
#include "cli/serve_model.h"
#include "cli/serve_options.h"
#include "cli/shutdown_signals.h"
#include "cli/serving.h"
#include "cli/subcommand.h"
#include "cli/tensor_parallel.h"
#include "cli/version.h"
#include "io/hf_hub.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad serve [MODEL] [options]";
constexpr const char* kDescription =
    "Start the OpenAI-compatible API server for a Gemma 4 model (a local directory or a Hugging Face\n"
    "repo id), with vLLM's flags.";

int UsageError(const std::string& message) {
  std::fprintf(stderr, "usage: %s\ngemmad serve: error: %s\n", kUsage, message.c_str());
  return 2;
}

int RunServe(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, ServeFlagTable(), /*max_positional=*/1);
  if (!flags.ok()) return UsageError(flags.status().message());
  if (flags->help_requested) {
    if (flags->help_topic == "markdown") {
      std::fputs(FormatMarkdownTable(ServeFlagGroups()).c_str(), stdout);
    } else {
      std::fputs(FormatHelp(kUsage, kDescription, ServeFlagGroups()).c_str(), stdout);
    }
    return 0;
  }
  auto options = BuildServeOptions(*flags);
  if (!options.ok()) return UsageError(options.status().message());
  const ServeOptions& o = *options;
  if (auto level = ParseLogLevel(o.log_level); level.ok()) SetLogLevel(*level);
  GEMMAD_LOG_INFO("gemmad API server version {}", Version());
  for (const std::string& name : o.ineffective_flags_set) {
    GEMMAD_LOG_WARNING("--{} is accepted for vLLM compatibility but has no effect in gemmad yet", name);
  }
  std::shared_ptr<dist::Communicator> tp;  // outlives `serving` (whose model uses it)
  if (o.tensor_parallel_size > 1) {
    // Resolved (downloaded) by the process that relaunches, before the ranks start; found in the
    // cache by every rank after it.
    auto dir = io::ResolveModelPath(o.model, o.revision, ServeHubSettings(o));
    if (!dir.ok()) return UsageError(dir.status().message());
    TensorParallelShard shard;
    shard.model_dir = *dir;
    shard.quantization = o.quantization;
    shard.compute_dtype = o.compute_dtype;
    shard.mmproj = {o.mmproj, o.no_mmproj};
    std::vector<std::string> relaunch = {"serve"};
    relaunch.insert(relaunch.end(), args.begin(), args.end());
    const auto fail = [](const Status& s) {
      if (s.code() == StatusCode::kInvalidArgument) return UsageError(s.message());
      GEMMAD_LOG_ERROR("{}", s.message());
      return 1;
    };
    if (auto exit_code = EnterTensorParallel(o.tensor_parallel_size, shard, relaunch, fail, &tp)) return *exit_code;
  }
  sigset_t signals = BlockShutdownSignals();
  StartFailure failure;
  std::unique_ptr<Serving> serving = StartServing(o, &failure, tp);
  if (!serving) {
    if (failure.usage) return UsageError(failure.status.message());
    GEMMAD_LOG_ERROR("{}", failure.status.message());
    return failure.exit_code();
  }
  if (o.uds.empty()) {
    GEMMAD_LOG_INFO("Starting gemmad API server on http{}://{}:{}", o.ssl_certfile.empty() ? "" : "s", o.host,
                    serving->port());
  } else {
    GEMMAD_LOG_INFO("Starting gemmad API server on unix:{}", o.uds);
  }
  GEMMAD_LOG_INFO("Available routes: /v1/chat/completions, /v1/completions, /v1/models, /tokenize, /detokenize, "
                  "/health, /ping, /version, /metrics, / (web chat page)");
  GEMMAD_LOG_INFO("Application startup complete.");

  int sig = 0;
  sigwait(&signals, &sig);
  GEMMAD_LOG_INFO("received {}; shutting down (grace period {} s)", sig == SIGTERM ? "SIGTERM" : "SIGINT",
                  o.shutdown_timeout_s);
  serving->Shutdown(o.shutdown_timeout_s);
  GEMMAD_LOG_INFO("Shutdown complete.");
  return 0;
}

}  // namespace

extern const Subcommand kCmd_serve;
const Subcommand kCmd_serve{"serve", "start the OpenAI-compatible API server (vLLM's `vllm serve`)", &RunServe};

}  // namespace gemmad::cli
