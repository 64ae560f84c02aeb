// Shared pieces of the offline benchmarks `gemmad bench latency` and `gemmad bench throughput`
// (vLLM's `vllm bench latency|throughput`): the engine flags both accept, starting an in-process
// engine from them (CreateModelEngine, as `gemmad serve`), the ids random prompts are drawn from
// (the tokenizer's ordinary tokens, else [0, vocab) minus the config's special ids), and running
// one set of requests at once through the public EngineClient with a timestamp per delta
// (bench_batch.cc). --tensor-parallel-size: cli/bench_tensor_parallel.h.
// Every request samples as vLLM's benchmarks do (temperature 1, top_p 1, ignore_eos, max_tokens
// = output_len), so each generates exactly output_len tokens.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/flag_spec.h"
#include "cli/model_engine.h"
#include "dist/communicator.h"
#include "engine/engine_client.h"
#include "spec/drafter.h"

namespace gemmad::cli {

// The engine flags of both offline benchmarks (vLLM EngineArgs names where they exist).
FlagTable OfflineEngineFlags();
// `bench` followed by the engine flags: one table for ParseFlags.
std::vector<FlagSpec> WithEngineFlags(FlagTable bench);

// One offline benchmark's command line, parsed against `bench` + the engine flags, with the
// --input-len and --output-len every benchmark has, checked.
struct OfflineCommand {
  ParsedFlags flags;
  int64_t input_len = 0, output_len = 0;
  bool help_printed = false;  // --help: the help went to stdout, nothing else to do
};
// A usage error (bad flag, bad length) is an InvalidArgument with the message to print.
Result<OfflineCommand> ParseOfflineCommand(const std::vector<std::string>& args, FlagTable bench, const char* usage,
                                           const char* description);

// The model name: the single positional argument or --model (one of them, or both equal).
Result<std::string> OfflineModelName(const ParsedFlags& f);

struct OfflineEngine {
  std::string model;      // as given
  std::string model_dir;  // resolved (local directory or HF cache)
  std::string quantization;
  int threads = 0;               // per rank under --tensor-parallel-size
  int tensor_parallel_size = 1;
  ModelEngine engine;
  std::vector<int32_t> prompt_ids;  // the ids random prompts are drawn from
};

// A drafter the benchmark brings itself (bench latency --replay-drafts) instead of
// --speculative-config's.
struct BenchDrafter {
  std::shared_ptr<const spec::TokenDrafter> drafter;
  int32_t num_tokens = 0;
  std::string label;
  bool disable_prefix_caching = false;
};

// The engine the flags describe, validated (InvalidArgument: a usage error) and the model
// resolved (not loaded): max_model_len = --max-model-len, else `needed_len` (the longest request
// of the benchmark); num_threads = --threads, else all hardware threads, or under
// --tensor-parallel-size N > 1 this rank's share (ThreadsPerRank).
Result<ModelEngineOptions> OfflineEngineOptions(const ParsedFlags& f, int64_t needed_len);

// Starts the engine of OfflineEngineOptions, with the benchmark's own drafter if any and, under
// --tensor-parallel-size, rank 0's communicator (cli/bench_tensor_parallel.h). A model that
// fails to load, or a KV budget too small, is an InvalidArgument.
Result<OfflineEngine> StartOfflineEngine(const ParsedFlags& f, ModelEngineOptions o,
                                         std::shared_ptr<dist::Communicator> comm = nullptr,
                                         const BenchDrafter* drafter = nullptr);

// One request's timeline, seconds from the batch start.
struct RequestTiming {
  double first_token_s = 0;  // first delta with tokens
  double last_token_s = 0;   // the delta that finished it
  int64_t output_tokens = 0;
  int64_t cached_tokens = 0;  // prompt tokens served from the prefix cache
  std::vector<int32_t> token_ids;  // the generated tokens
};

struct BatchTiming {
  double elapsed_s = 0;  // start -> the last request's final delta
  std::vector<RequestTiming> requests;
};

// Submits every prompt at once (each generating exactly output_len tokens; greedy instead of
// vLLM's temperature 1 when `greedy`) and waits for all.
// Timestamps are taken on the engine thread as each delta is pushed (RequestStream notifier).
// Errors: a rejected submit, a request ending with an error, or one that did not produce
// output_len tokens.
Result<BatchTiming> RunBatch(engine::EngineClient& client, const std::vector<std::vector<int32_t>>& prompts,
                             int64_t output_len, bool greedy = false);

// The shared settings block of the JSON outputs (model, quantization, threads, ...).
nlohmann::ordered_json OfflineSettingsJson(const OfflineEngine& e);

// Writes `j` (indented) to `path`; a failure names the file.
Status WriteJsonFile(const std::string& path, const nlohmann::ordered_json& j);

int RunBenchLatency(const std::vector<std::string>& args);
int RunBenchThroughput(const std::vector<std::string>& args);

}  // namespace gemmad::cli
