// `gemmad bench latency [MODEL] [flags]`: vLLM's `vllm bench latency`, in process. Each
// iteration submits --batch-size random token-id prompts of exactly --input-len tokens at once,
// each generating exactly --output-len tokens, and times the batch end to end (--num-iters-warmup
// untimed iterations first). Prints vLLM's lines ("Avg latency: X seconds", the 10/25/50/75/90/99%
// percentiles) and gemmad's extras from the per-delta timestamps: time to first token, the batch
// prefill time, the decode step time (TPOT) and the batch's decode tokens per second. Every
// iteration draws fresh prompts (seed + iteration), so the prefix cache never serves a prompt.
// --output-json: vLLM's fields (avg_latency, latencies, percentiles) plus the extras.
// --tensor-parallel-size N: N ranks under mpirun, the benchmark on rank 0 (bench_tensor_parallel.h).
// Bad flags: one line on stderr, exit 2; a failing request: one line, exit 1.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli/bench_dataset.h"
#include "cli/bench_offline.h"
#include "cli/bench_stats.h"
#include "cli/bench_tensor_parallel.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad bench latency [MODEL] [options]";
constexpr const char* kDescription =
    "Benchmark the latency of processing a single batch of requests, in process (vLLM's `vllm bench latency`).";
constexpr double kPercentiles[] = {10, 25, 50, 75, 90, 99};

using enum FlagType;
constexpr FlagSpec kFlags[] = {
    {"input-len", kInt, "32", "Prompt tokens per request."},
    {"output-len", kInt, "128", "Generated tokens per request (EOS ignored)."},
    {"batch-size", kInt, "8", "Requests submitted together in each iteration."},
    {"num-iters-warmup", kInt, "10", "Untimed iterations first."},
    {"num-iters", kInt, "30", "Timed iterations."},
    {"output-json", kString, "", "Write the results (vLLM's fields plus gemmad's extras) to this JSON file."},
    {"replay-drafts", kInt, "0",
     "gemmad: the cost of speculative verification. Each iteration runs its batch twice, greedy: plainly (recorded), "
     "then with this many drafts per step replayed from the recording (all accepted, same output); prints both "
     "decode rates and their ratio. Prefix caching is off in this mode."},
};

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "gemmad bench latency: error: %s\n", message.c_str());
  return code;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The batch's prefill time: until the last request's first token.
double BatchPrefill(const BatchTiming& t) {
  double prefill = 0;
  for (const RequestTiming& r : t.requests) prefill = std::max(prefill, r.first_token_s);
  return prefill;
}

// Decode tokens/s: the batch's tokens after the first, over the time after the last prefill (0
// when there is none).
double DecodeRate(const BatchTiming& t, int64_t batch, int64_t output_len) {
  const double prefill = BatchPrefill(t);
  if (output_len < 2 || t.elapsed_s <= prefill) return 0.0;
  return static_cast<double>(batch * (output_len - 1)) / (t.elapsed_s - prefill);
}

// --replay-drafts K: per iteration a plain greedy run (recorded) and a replayed-draft run of the same
// prompts; both decode rates, their ratio, and whether the outputs were identical.
int RunReplay(const ParsedFlags& f, const ModelEngineOptions& eo, std::shared_ptr<dist::Communicator> comm,
              int64_t input_len, int64_t output_len, int64_t batch, int64_t warmup, int64_t iters, int64_t num_drafts) {
  auto book = std::make_shared<spec::ReplayBook>();
  BenchDrafter bd{std::make_shared<spec::ReplayDrafter>(book), static_cast<int32_t>(num_drafts),
                  "replay of the recorded greedy run (benchmark)", true};
  auto e = StartOfflineEngine(f, eo, std::move(comm), &bd);
  if (!e.ok()) return Fail(2, e.status().message());
  engine::EngineClient& client = *e->engine.engine;
  const uint64_t seed = static_cast<uint64_t>(f.GetInt("seed"));
  std::vector<double> plain, replayed, ratios;
  int64_t mismatches = 0;
  for (int64_t k = 0; k < warmup + iters; ++k) {
    const auto prompts = RandomPrompts(batch, input_len, e->prompt_ids, seed + static_cast<uint64_t>(k));
    auto a = RunBatch(client, prompts, output_len, /*greedy=*/true);
    if (!a.ok()) return Fail(1, a.status().message());
    for (size_t i = 0; i < prompts.size(); ++i) {
      std::vector<int32_t> all = prompts[i];
      all.insert(all.end(), a->requests[i].token_ids.begin(), a->requests[i].token_ids.end());
      book->Record(std::move(all));
    }
    auto b = RunBatch(client, prompts, output_len, /*greedy=*/true);
    if (!b.ok()) return Fail(1, b.status().message());
    if (k < warmup) continue;
    for (size_t i = 0; i < prompts.size(); ++i) mismatches += a->requests[i].token_ids != b->requests[i].token_ids;
    plain.push_back(DecodeRate(*a, batch, output_len));
    replayed.push_back(DecodeRate(*b, batch, output_len));
    ratios.push_back(plain.back() > 0 ? replayed.back() / plain.back() : 0.0);
    std::printf("iteration %lld: plain decode %.2f tokens/s, replayed %lld drafts %.2f tokens/s (%.2fx)\n",
                static_cast<long long>(k - warmup), plain.back(), static_cast<long long>(num_drafts), replayed.back(),
                ratios.back());
  }
  std::printf("Plain decode throughput: %.2f output tokens/s (batch size %lld, greedy)\n", Mean(plain),
              static_cast<long long>(batch));
  std::printf("Replayed-draft decode throughput: %.2f output tokens/s (%lld drafts per step, all accepted)\n",
              Mean(replayed), static_cast<long long>(num_drafts));
  std::printf("Speed-up: %.2fx (mean of per-iteration ratios)\n", Mean(ratios));
  std::printf("Outputs identical to the plain run: %lld of %lld requests\n",
              static_cast<long long>(iters * batch - mismatches), static_cast<long long>(iters * batch));
  const std::string json_path = f.GetString("output-json");
  if (!json_path.empty()) {
    nlohmann::ordered_json j;
    j["plain_decode_tokens_per_second"] = plain;
    j["replayed_decode_tokens_per_second"] = replayed;
    j["speedups"] = ratios;
    j["mean_speedup"] = Mean(ratios);
    j["num_drafts"] = num_drafts;
    j["mismatched_requests"] = mismatches;
    j["batch_size"] = batch;
    j["input_len"] = input_len;
    j["output_len"] = output_len;
    j["num_iters"] = iters;
    j.update(OfflineSettingsJson(*e));
    if (Status s = WriteJsonFile(json_path, j); !s.ok()) return Fail(1, s.message());
  }
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int RunBenchLatency(const std::vector<std::string>& args) {
  auto cmd = ParseOfflineCommand(args, kFlags, kUsage, kDescription);
  if (!cmd.ok()) return Fail(2, cmd.status().message());
  if (cmd->help_printed) return 0;
  const ParsedFlags& f = cmd->flags;
  const int64_t input_len = cmd->input_len, output_len = cmd->output_len;
  const int64_t batch = f.GetInt("batch-size");
  const int64_t warmup = f.GetInt("num-iters-warmup"), iters = f.GetInt("num-iters");
  if (batch < 1 || batch > (int64_t{1} << 20)) return Fail(2, "--batch-size must be at least 1");
  if (warmup < 0) return Fail(2, "--num-iters-warmup must be non-negative");
  if (iters < 1) return Fail(2, "--num-iters must be at least 1");
  if (auto name = OfflineModelName(f); !name.ok()) return Fail(2, name.status().message());
  const int64_t replay = f.GetInt("replay-drafts");
  if (replay < 0 || replay > 64) return Fail(2, "--replay-drafts must be in [0, 64]");
  if (replay > 0 && output_len < 2) return Fail(2, "--replay-drafts needs --output-len of at least 2");
  if (replay > 0 && !f.IsNull("speculative-config")) {
    return Fail(2, "--speculative-config and --replay-drafts exclude each other");
  }
  auto eo = OfflineEngineOptions(f, input_len + output_len);
  if (!eo.ok()) return Fail(2, eo.status().message());
  std::shared_ptr<dist::Communicator> tp;  // rank 0 of --tensor-parallel-size N; outlives the engine
  if (auto done = EnterOfflineTensorParallel(f, *eo, "latency", args, &tp)) return *done;
  if (replay > 0) return RunReplay(f, *eo, tp, input_len, output_len, batch, warmup, iters, replay);
  auto e = StartOfflineEngine(f, *eo, tp);
  if (!e.ok()) return Fail(2, e.status().message());
  engine::EngineClient& client = *e->engine.engine;
  const uint64_t seed = static_cast<uint64_t>(f.GetInt("seed"));

  auto run = [&](int64_t k) {
    return RunBatch(client, RandomPrompts(batch, input_len, e->prompt_ids, seed + static_cast<uint64_t>(k)), output_len);
  };
  std::printf("Warming up...\n");
  std::fflush(stdout);
  for (int64_t k = 0; k < warmup; ++k) {
    if (auto r = run(k); !r.ok()) return Fail(1, r.status().message());
  }
  std::vector<double> latencies, ttfts, prefills, tpots, decode_rates;
  int64_t cached = 0;
  for (int64_t k = 0; k < iters; ++k) {
    auto r = run(warmup + k);
    if (!r.ok()) return Fail(1, r.status().message());
    latencies.push_back(r->elapsed_s);
    for (const RequestTiming& t : r->requests) {
      ttfts.push_back(t.first_token_s);
      cached += t.cached_tokens;
      if (output_len > 1) tpots.push_back((t.last_token_s - t.first_token_s) / static_cast<double>(output_len - 1));
    }
    prefills.push_back(BatchPrefill(*r));
    if (output_len > 1 && r->elapsed_s > prefills.back()) decode_rates.push_back(DecodeRate(*r, batch, output_len));
  }

  const double avg = Mean(latencies), avg_prefill = Mean(prefills);
  const double prefill_rate = avg_prefill > 0 ? static_cast<double>(batch * input_len) / avg_prefill : 0.0;
  std::printf("Avg latency: %s seconds\n", fmt::format("{}", avg).c_str());
  nlohmann::ordered_json pct = nlohmann::ordered_json::object();
  for (double p : kPercentiles) {
    const double v = Percentile(latencies, p);
    std::printf("%d%% percentile latency: %s seconds\n", static_cast<int>(p), fmt::format("{}", v).c_str());
    pct[fmt::format("{}", static_cast<int>(p))] = v;
  }
  std::printf("Avg time to first token: %s seconds\n", fmt::format("{}", Mean(ttfts)).c_str());
  std::printf("Avg batch prefill time: %s seconds (%.2f prompt tokens/s)\n", fmt::format("{}", avg_prefill).c_str(),
              prefill_rate);
  if (output_len > 1) {
    std::printf("Avg decode step time (TPOT): %.3f ms\n", Mean(tpots) * 1e3);
    std::printf("Decode throughput: %.2f output tokens/s (batch size %lld)\n", Mean(decode_rates),
                static_cast<long long>(batch));
  } else {
    std::printf("Avg decode step time (TPOT): n/a (--output-len 1)\n");
  }

  const std::string json_path = f.GetString("output-json");
  if (!json_path.empty()) {
    nlohmann::ordered_json j;
    j["avg_latency"] = avg;
    j["latencies"] = latencies;
    j["percentiles"] = pct;
    j["avg_ttft"] = Mean(ttfts);
    j["ttfts"] = ttfts;
    j["avg_prefill_time"] = avg_prefill;
    j["prefill_tokens_per_second"] = prefill_rate;
    j["avg_tpot"] = output_len > 1 ? nlohmann::ordered_json(Mean(tpots)) : nlohmann::ordered_json();
    j["decode_tokens_per_second"] =
        output_len > 1 ? nlohmann::ordered_json(Mean(decode_rates)) : nlohmann::ordered_json();
    j["output_tokens_per_iteration"] = batch * output_len;
    j["num_cached_prompt_tokens"] = cached;
    j["batch_size"] = batch;
    j["input_len"] = input_len;
    j["output_len"] = output_len;
    j["num_iters"] = iters;
    j["num_iters_warmup"] = warmup;
    j["seed"] = seed;
    j.update(OfflineSettingsJson(*e));
    if (Status s = WriteJsonFile(json_path, j); !s.ok()) return Fail(1, s.message());
  }
  return 0;
}

}  // namespace gemmad::cli
