// `gemmad bench throughput [MODEL] [flags]`: vLLM's `vllm bench throughput` with the random
// dataset, in process. Submits --num-prompts random token-id prompts of exactly --input-len
// tokens at once (the scheduler batches them up to --max-num-seqs / --max-num-batched-tokens),
// each generating exactly --output-len tokens, and prints vLLM's lines: "Throughput: X
// requests/s, Y total tokens/s, Z output tokens/s" and the prompt/output token totals.
// --output-json: vLLM's fields (elapsed_time, num_requests, total_num_tokens,
// requests_per_second, tokens_per_second) plus gemmad's extras. Bad flags: one line on stderr,
// exit 2; a failing request: one line, exit 1. --tensor-parallel-size N: N ranks under mpirun, the
// benchmark on rank 0 (bench_tensor_parallel.h).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/bench_dataset.h"
#include "cli/bench_offline.h"
#include "cli/bench_tensor_parallel.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad bench throughput [MODEL] [options]";
constexpr const char* kDescription =
    "Benchmark offline inference throughput with random token-id prompts, in process (vLLM's\n"
    "`vllm bench throughput --dataset-name random`).";

using enum FlagType;
constexpr FlagSpec kFlags[] = {
    {"dataset-name", kString, "random", "Dataset (only random).", FlagEffect::kEffective, "random"},
    {"input-len", kInt, "1024", "Prompt tokens per request."},
    {"output-len", kInt, "128", "Generated tokens per request (EOS ignored)."},
    {"num-prompts", kInt, "1000", "Number of requests, all submitted at once."},
    {"output-json", kString, "", "Write the results (vLLM's fields plus gemmad's extras) to this JSON file."},
};

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "gemmad bench throughput: error: %s\n", message.c_str());
  return code;
}

}  // namespace

int RunBenchThroughput(const std::vector<std::string>& args) {
  auto cmd = ParseOfflineCommand(args, kFlags, kUsage, kDescription);
  if (!cmd.ok()) return Fail(2, cmd.status().message());
  if (cmd->help_printed) return 0;
  const ParsedFlags& f = cmd->flags;
  const int64_t input_len = cmd->input_len, output_len = cmd->output_len;
  const int64_t num_prompts = f.GetInt("num-prompts");
  if (num_prompts < 1 || num_prompts > (int64_t{1} << 24)) return Fail(2, "--num-prompts must be at least 1");
  if (auto name = OfflineModelName(f); !name.ok()) return Fail(2, name.status().message());
  auto eo = OfflineEngineOptions(f, input_len + output_len);
  if (!eo.ok()) return Fail(2, eo.status().message());
  std::shared_ptr<dist::Communicator> tp;  // rank 0 of --tensor-parallel-size N; outlives the engine
  if (auto done = EnterOfflineTensorParallel(f, *eo, "throughput", args, &tp)) return *done;
  auto e = StartOfflineEngine(f, *eo, tp);
  if (!e.ok()) return Fail(2, e.status().message());
  const uint64_t seed = static_cast<uint64_t>(f.GetInt("seed"));
  const auto prompts = RandomPrompts(num_prompts, input_len, e->prompt_ids, seed);

  auto r = RunBatch(*e->engine.engine, prompts, output_len);
  if (!r.ok()) return Fail(1, r.status().message());
  const double elapsed = r->elapsed_s;
  const int64_t prompt_tokens = num_prompts * input_len;
  int64_t output_tokens = 0;
  double ttft_sum = 0;
  for (const RequestTiming& t : r->requests) {
    output_tokens += t.output_tokens;
    ttft_sum += t.first_token_s;
  }
  const int64_t total_tokens = prompt_tokens + output_tokens;
  const double rps = static_cast<double>(num_prompts) / elapsed;
  const double tps = static_cast<double>(total_tokens) / elapsed;
  const double ops = static_cast<double>(output_tokens) / elapsed;
  std::printf("Throughput: %.2f requests/s, %.2f total tokens/s, %.2f output tokens/s\n", rps, tps, ops);
  std::printf("Total num prompt tokens:  %lld\n", static_cast<long long>(prompt_tokens));
  std::printf("Total num output tokens:  %lld\n", static_cast<long long>(output_tokens));
  std::printf("Elapsed time: %s seconds\n", fmt::format("{}", elapsed).c_str());

  const std::string json_path = f.GetString("output-json");
  if (!json_path.empty()) {
    nlohmann::ordered_json j;
    j["elapsed_time"] = elapsed;
    j["num_requests"] = num_prompts;
    j["total_num_tokens"] = total_tokens;
    j["requests_per_second"] = rps;
    j["tokens_per_second"] = tps;
    j["output_tokens_per_second"] = ops;
    j["total_prompt_tokens"] = prompt_tokens;
    j["total_output_tokens"] = output_tokens;
    j["mean_ttft"] = ttft_sum / static_cast<double>(num_prompts);
    j["input_len"] = input_len;
    j["output_len"] = output_len;
    j["seed"] = seed;
    j.update(OfflineSettingsJson(*e));
    if (Status s = WriteJsonFile(json_path, j); !s.ok()) return Fail(1, s.message());
  }
  return 0;
}

}  // namespace gemmad::cli
