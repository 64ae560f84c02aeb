// `gemmad bench serve [flags]`: vLLM's `vllm bench serve` with the random dataset against any
// OpenAI-compatible server (GET /v1/models, streaming POST /v1/completions). Prompts are random
// token ids (bench_dataset.h) sent as token-id prompts, so --random-input-len is exact; the
// allowed ids are the tokenizer's vocabulary minus its added/special tokens (--tokenizer, default
// the served model: a local directory or the HF cache, never downloaded),
// or [0, --random-vocab-size) without a tokenizer. Output: vLLM's report on stdout and, with
// --result-json, vLLM's result fields. Bad flags: one line on stderr, exit 2; an unreachable
// server or a failing initial test request: one line, exit 1. `gemmad bench latency|throughput`
// (in process, vLLM's offline benchmarks) are bench_latency.cc and bench_throughput.cc.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/bench_client.h"
#include "cli/sse_client.h"
#include "cli/bench_dataset.h"
#include "cli/bench_offline.h"
#include "cli/bench_stats.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/flag_values.h"
#include "cli/subcommand.h"
#include "io/hf_hub.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad bench serve [options]";
constexpr const char* kDescription =
    "Benchmark the online serving throughput and latency of an OpenAI-compatible server with random\n"
    "token-id prompts (vLLM's `vllm bench serve --dataset-name random`).";

using enum FlagType;
constexpr FlagSpec kFlags[] = {
    {"base-url", kString, "", "Server base URL (e.g. http://127.0.0.1:8000); overrides --host/--port."},
    {"host", kString, "127.0.0.1", "Server host when --base-url is not given."},
    {"port", kInt, "8000", "Server port when --base-url is not given."},
    {"endpoint", kString, "/v1/completions", "Completions endpoint path."},
    {"backend", kString, "openai", "Request format (OpenAI completions).", FlagEffect::kEffective, "openai|vllm"},
    {"dataset-name", kString, "random", "Dataset (only random).", FlagEffect::kEffective, "random"},
    {"model", kString, "", "Model name to request (default: the first id of GET /v1/models)."},
    {"tokenizer", kString, "", "Tokenizer (directory or HF repo id) whose vocabulary the random ids come from "
                               "(default: --model; a local directory or the HF cache)."},
    {"random-vocab-size", kInt, "", "Draw ids from [0, N) instead of loading a tokenizer."},
    {"num-prompts", kInt, "1000", "Number of requests."},
    {"max-concurrency", kInt, "", "Most requests in flight at once (default: unlimited)."},
    {"request-rate", kFloat, "inf", "Requests per second, Poisson arrivals (inf: all at once)."},
    {"random-input-len", kInt, "1024", "Prompt tokens per request."},
    {"random-output-len", kInt, "128", "max_tokens per request."},
    {"temperature", kFloat, "0", "Sampling temperature sent with each request."},
    {"ignore-eos", kBool, "true", "Send ignore_eos so that every request generates random-output-len tokens."},
    {"seed", kInt, "0", "Seed of the prompts and the arrival times."},
    {"metric-percentiles", kString, "99", "Comma-separated percentiles to report."},
    {"result-json", kString, "", "Write the results (vLLM's fields) to this JSON file."},
    {"timeout", kFloat, "21600", "Per-request timeout in seconds."},
    {"disable-tqdm", kBool, "false", "Accepted for vLLM compatibility (there is no progress bar).",
     FlagEffect::kAccepted},
};

int UsageError(const std::string& message) {
  std::fprintf(stderr, "gemmad bench serve: error: %s\n", message.c_str());
  return 2;
}

int RuntimeError(const std::string& message) {
  std::fprintf(stderr, "gemmad bench serve: error: %s\n", message.c_str());
  return 1;
}

Result<std::vector<double>> ParsePercentiles(const std::string& text) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    auto v = ParseFloatText(text.substr(start, comma - start));
    if (!v.ok() || *v < 0 || *v > 100) {
      return InvalidArgumentError(fmt::format("argument --metric-percentiles: '{}' is not a percentile in [0, 100]",
                                              text.substr(start, comma - start)));
    }
    out.push_back(*v);
    start = comma + 1;
  }
  return out;
}

// The ids random prompts are drawn from.
Result<std::vector<int32_t>> AllowedIds(const ParsedFlags& f, const std::string& model) {
  std::vector<int32_t> ids;
  if (!f.IsNull("random-vocab-size")) {
    const int64_t n = f.GetInt("random-vocab-size");
    if (n < 1 || n > (int64_t{1} << 31) - 1) return InvalidArgumentError("--random-vocab-size must be positive");
    for (int32_t i = 0; i < n; ++i) ids.push_back(i);
    return ids;
  }
  const std::string name = f.GetString("tokenizer").empty() ? model : f.GetString("tokenizer");
  // Local directory or HF cache only: resolving online would download the model's weights too.
  io::HubSettings hub = io::HubSettingsFromEnv();
  hub.offline = true;
  auto dir = io::ResolveModelPath(name, "main", hub, "tokenizer.json");
  if (!dir.ok()) {
    return InvalidArgumentError(fmt::format("cannot load the tokenizer of '{}' ({}); pass --tokenizer or "
                                            "--random-vocab-size", name, dir.status().message()));
  }
  auto tok = tokenizer::Tokenizer::Load(*dir);
  if (!tok.ok()) {
    return InvalidArgumentError(fmt::format("cannot load the tokenizer in {} ({}); pass --tokenizer or "
                                            "--random-vocab-size", *dir, tok.status().message()));
  }
  for (int32_t i = 0; i < (*tok)->vocab_size(); ++i) {
    if (!(*tok)->IsAdded(i) && !(*tok)->IdToToken(i).empty()) ids.push_back(i);
  }
  if (ids.empty()) return InvalidArgumentError(fmt::format("the tokenizer of '{}' has no ordinary tokens", name));
  return ids;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

int RunBenchServe(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, kFlags, /*max_positional=*/0);
  if (!flags.ok()) return UsageError(flags.status().message());
  const ParsedFlags& f = *flags;
  if (f.help_requested) {
    std::fputs(FormatHelp(kUsage, kDescription, {{"Benchmark", kFlags}}).c_str(), stdout);
    return 0;
  }
  const int64_t num_prompts = f.GetInt("num-prompts");
  const int64_t input_len = f.GetInt("random-input-len");
  const int64_t output_len = f.GetInt("random-output-len");
  const double rate = f.GetFloat("request-rate");
  const int64_t concurrency = f.IsNull("max-concurrency") ? 0 : f.GetInt("max-concurrency");
  const double timeout_s = f.GetFloat("timeout");
  if (num_prompts < 1) return UsageError("--num-prompts must be at least 1");
  if (input_len < 1) return UsageError("--random-input-len must be at least 1");
  if (output_len < 1) return UsageError("--random-output-len must be at least 1");
  if (!(rate > 0)) return UsageError("--request-rate must be positive (or inf)");
  if (!f.IsNull("max-concurrency") && concurrency < 1) return UsageError("--max-concurrency must be at least 1");
  if (!(timeout_s > 0)) return UsageError("--timeout must be positive");
  if (f.GetInt("seed") < 0) return UsageError("--seed must be non-negative");
  auto percentiles = ParsePercentiles(f.GetString("metric-percentiles"));
  if (!percentiles.ok()) return UsageError(percentiles.status().message());
  std::string endpoint = f.GetString("endpoint");
  if (endpoint.empty() || endpoint.front() != '/') return UsageError("--endpoint must start with '/'");
  std::string base = f.GetString("base-url");
  if (base.empty()) base = fmt::format("http://{}:{}", f.GetString("host"), f.GetInt("port"));
  base = Trimmed(base);
  if (base.rfind("http://", 0) != 0 && base.rfind("https://", 0) != 0) {
    return UsageError(fmt::format("--base-url '{}' must start with http:// or https://", base));
  }
  const char* key_env = std::getenv("OPENAI_API_KEY");
  const std::string api_key = key_env ? key_env : "";

  std::string model = f.GetString("model");
  if (model.empty()) {
    auto models = ListModels(base, api_key);
    if (!models.ok()) return RuntimeError(models.status().message());
    model = models->front();
  }
  auto allowed = AllowedIds(f, model);
  if (!allowed.ok()) return UsageError(allowed.status().message());

  BenchInfo info;
  info.model = model;
  info.base_url = base;
  info.endpoint = endpoint;
  info.num_prompts = num_prompts;
  info.request_rate = rate;
  info.max_concurrency = concurrency;
  info.input_len = input_len;
  info.output_len = output_len;
  info.seed = static_cast<uint64_t>(f.GetInt("seed"));
  info.ignore_eos = f.GetBool("ignore-eos");

  const auto prompts = RandomPrompts(num_prompts, input_len, *allowed, info.seed);
  const auto offsets = ArrivalOffsets(num_prompts, rate, info.seed);
  const std::string url = base + endpoint;
  const double temperature = f.GetFloat("temperature");
  auto body_for = [&](const std::vector<int32_t>& prompt) {
    nlohmann::json b;
    b["model"] = model;
    b["prompt"] = prompt;
    b["max_tokens"] = output_len;
    b["temperature"] = temperature;
    b["stream"] = true;
    b["stream_options"] = {{"include_usage", true}};
    if (info.ignore_eos) b["ignore_eos"] = true;
    return b;
  };

  std::printf("Starting initial single prompt test run...\n");
  std::fflush(stdout);
  {
    BenchConnection conn(api_key, timeout_s);
    RequestResult test = conn.StreamCompletion(url, body_for(prompts.front()), input_len);
    if (!test.success) return RuntimeError("initial test run failed: " + test.error);
  }
  std::printf("Initial test run completed. Starting main benchmark run...\n");
  std::printf("Traffic request rate: %s\nMaximum request concurrency: %s\n",
              std::isfinite(rate) ? fmt::format("{}", rate).c_str() : "inf",
              concurrency > 0 ? std::to_string(concurrency).c_str() : "None");
  std::fflush(stdout);

  std::vector<RequestResult> results(static_cast<size_t>(num_prompts));
  std::atomic<int64_t> next{0};
  const int64_t num_workers = concurrency > 0 ? std::min(concurrency, num_prompts) : num_prompts;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(num_workers));
  for (int64_t w = 0; w < num_workers; ++w) {
    workers.emplace_back([&] {
      BenchConnection conn(api_key, timeout_s);
      for (int64_t i = next.fetch_add(1); i < num_prompts; i = next.fetch_add(1)) {
        const size_t k = static_cast<size_t>(i);
        std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                  std::chrono::duration<double>(offsets[k])));
        results[k] = conn.StreamCompletion(url, body_for(prompts[k]), input_len);
      }
    });
  }
  for (auto& t : workers) t.join();
  const double duration = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  BenchMetrics m = ComputeMetrics(results, duration, *percentiles);
  std::fputs(FormatReport(m, info).c_str(), stdout);
  for (const RequestResult& r : results) {
    if (!r.success) {
      std::fprintf(stderr, "first failed request: %s\n", r.error.c_str());
      break;
    }
  }
  const std::string json_path = f.GetString("result-json");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << ResultJson(m, info, results).dump(2) << "\n";
    if (!out) return RuntimeError("cannot write " + json_path);
  }
  return 0;
}

int BenchUsageError(const std::string& message) {
  std::fprintf(stderr, "gemmad bench: error: %s\n", message.c_str());
  return 2;
}

int RunBench(const std::vector<std::string>& args) {
  if (args.empty()) {
    return BenchUsageError("missing the benchmark to run (usage: gemmad bench {serve,latency,throughput} [options])");
  }
  if (args[0] == "--help" || args[0] == "-h") {
    std::printf("usage: gemmad bench {serve,latency,throughput} [options]\n\n"
                "  serve       %s\n"
                "  latency     the latency of one batch of requests, in process (vLLM's `vllm bench latency`)\n"
                "  throughput  offline throughput of many requests, in process (vLLM's `vllm bench throughput`)\n\n"
                "Run `gemmad bench <benchmark> --help` for the flags.\n",
                "online serving against an OpenAI-compatible server (vLLM's `vllm bench serve`)");
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "serve") return RunBenchServe(rest);
  if (args[0] == "latency") return RunBenchLatency(rest);
  if (args[0] == "throughput") return RunBenchThroughput(rest);
  return BenchUsageError(fmt::format("unknown benchmark '{}' (choose from 'serve', 'latency', 'throughput')", args[0]));
}

}  // namespace

extern const Subcommand kCmd_bench;
const Subcommand kCmd_bench{"bench", "benchmarks: serve (a running server), latency and throughput (in process)",
                            &RunBench};

}  // namespace gemmad::cli
