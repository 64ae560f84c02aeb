// Statistics of `gemmad bench serve`, computed as `vllm bench serve` computes them
// (vllm/benchmarks/serve.py calculate_metrics): per-request TTFT, TPOT = (latency - TTFT) /
// (output_tokens - 1), ITLs = gaps between successive content chunks; mean, median, std and
// percentiles with numpy's linear interpolation; throughputs over the benchmark duration.
// Failed requests count for nothing but `failed`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gemmad::cli {

struct RequestResult {
  bool success = false;
  int64_t prompt_len = 0;
  int64_t output_tokens = 0;  // usage.completion_tokens, else the number of content chunks
  double ttft_s = 0;
  double latency_s = 0;       // first byte sent -> last content chunk
  std::vector<double> itl_s;
  std::string generated_text;
  std::string error;
};

// numpy.percentile(values, p) (linear interpolation); 0 for an empty list.
double Percentile(std::vector<double> values, double p);

struct Distribution {  // milliseconds
  double mean = 0, median = 0, std = 0;
  std::vector<std::pair<double, double>> percentiles;  // (p, value)
};
// Of `values_s` in seconds, reported in ms; every statistic is 0 for an empty list (numpy's
// np.mean(x or 0)).
Distribution Summarize(const std::vector<double>& values_s, const std::vector<double>& percentiles);

struct BenchMetrics {
  int64_t completed = 0, failed = 0;
  int64_t total_input = 0, total_output = 0;
  double duration_s = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  Distribution ttft, tpot, itl, e2el;
};

BenchMetrics ComputeMetrics(const std::vector<RequestResult>& results, double duration_s,
                            const std::vector<double>& percentiles);

struct BenchInfo {  // what the report says about the run
  std::string model, base_url, endpoint;
  int64_t num_prompts = 0;
  double request_rate = 0;           // inf when unlimited
  int64_t max_concurrency = 0;       // 0 = unlimited
  int64_t input_len = 0, output_len = 0;
  uint64_t seed = 0;
  bool ignore_eos = true;
};

// vLLM's text report (=== Serving Benchmark Result === ... ITL block).
std::string FormatReport(const BenchMetrics& m, const BenchInfo& info);
// vLLM's --result-json fields (duration, completed, total_input_tokens, ..., mean_ttft_ms, ...,
// p99_itl_ms, input_lens, output_lens, ttfts, itls, errors) plus the run's settings.
nlohmann::json ResultJson(const BenchMetrics& m, const BenchInfo& info, const std::vector<RequestResult>& results);

}  // namespace gemmad::cli
