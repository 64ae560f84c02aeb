// vLLM's serving-benchmark arithmetic and report layout.
#include "cli/bench_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gemmad::cli {

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return v[lo] + (v[hi] - v[lo]) * frac;
}

Distribution Summarize(const std::vector<double>& values_s, const std::vector<double>& percentiles) {
  Distribution d;
  if (!values_s.empty()) {
    double sum = 0;
    for (double x : values_s) sum += x;
    const double mean = sum / static_cast<double>(values_s.size());
    double sq = 0;
    for (double x : values_s) sq += (x - mean) * (x - mean);
    d.mean = mean * 1000.0;
    d.std = std::sqrt(sq / static_cast<double>(values_s.size())) * 1000.0;  // numpy's ddof=0
    d.median = Percentile(values_s, 50) * 1000.0;
  }
  for (double p : percentiles) d.percentiles.emplace_back(p, Percentile(values_s, p) * 1000.0);
  return d;
}

BenchMetrics ComputeMetrics(const std::vector<RequestResult>& results, double duration_s,
                            const std::vector<double>& percentiles) {
  BenchMetrics m;
  m.duration_s = duration_s;
  std::vector<double> ttfts, tpots, itls, e2els;
  for (const RequestResult& r : results) {
    if (!r.success) {
      ++m.failed;
      continue;
    }
    ++m.completed;
    m.total_input += r.prompt_len;
    m.total_output += r.output_tokens;
    if (r.output_tokens > 1) {
      tpots.push_back((r.latency_s - r.ttft_s) / static_cast<double>(r.output_tokens - 1));
    }
    itls.insert(itls.end(), r.itl_s.begin(), r.itl_s.end());
    ttfts.push_back(r.ttft_s);
    e2els.push_back(r.latency_s);
  }
  if (duration_s > 0) {
    m.request_throughput = static_cast<double>(m.completed) / duration_s;
    m.output_throughput = static_cast<double>(m.total_output) / duration_s;
    m.total_token_throughput = static_cast<double>(m.total_input + m.total_output) / duration_s;
  }
  m.ttft = Summarize(ttfts, percentiles);
  m.tpot = Summarize(tpots, percentiles);
  m.itl = Summarize(itls, percentiles);
  m.e2el = Summarize(e2els, percentiles);
  return m;
}

namespace {

std::string Centered(const std::string& s, char fill) {
  const size_t n = 50;
  if (s.size() >= n) return s;
  const size_t left = (n - s.size()) / 2;  // Python's str.format '^' puts the extra fill right
  return std::string(left, fill) + s + std::string(n - s.size() - left, fill);
}

std::string Row(const std::string& label, const std::string& value) { return fmt::format("{:<40} {:<10}\n", label, value); }
std::string Row(const std::string& label, double value) { return fmt::format("{:<40} {:<10.2f}\n", label, value); }

std::string PercentileName(double p) {
  return p == std::floor(p) ? fmt::format("{}", static_cast<int64_t>(p)) : fmt::format("{}", p);
}

void Block(std::string* out, const std::string& title, const std::string& key, const Distribution& d) {
  *out += Centered(title, '-') + "\n";
  *out += Row(fmt::format("Mean {} (ms):", key), d.mean);
  *out += Row(fmt::format("Median {} (ms):", key), d.median);
  for (const auto& [p, v] : d.percentiles) *out += Row(fmt::format("P{} {} (ms):", PercentileName(p), key), v);
}

void JsonBlock(nlohmann::json* j, const std::string& key, const Distribution& d) {
  (*j)["mean_" + key + "_ms"] = d.mean;
  (*j)["median_" + key + "_ms"] = d.median;
  (*j)["std_" + key + "_ms"] = d.std;
  for (const auto& [p, v] : d.percentiles) (*j)["p" + PercentileName(p) + "_" + key + "_ms"] = v;
}

}  // namespace

std::string FormatReport(const BenchMetrics& m, const BenchInfo& info) {
  std::string out = Centered(" Serving Benchmark Result ", '=') + "\n";
  out += Row("Successful requests:", std::to_string(m.completed));
  out += Row("Failed requests:", std::to_string(m.failed));
  if (info.max_concurrency > 0) out += Row("Maximum request concurrency:", std::to_string(info.max_concurrency));
  if (std::isfinite(info.request_rate)) out += Row("Request rate configured (RPS):", info.request_rate);
  out += Row("Benchmark duration (s):", m.duration_s);
  out += Row("Total input tokens:", std::to_string(m.total_input));
  out += Row("Total generated tokens:", std::to_string(m.total_output));
  out += Row("Request throughput (req/s):", m.request_throughput);
  out += Row("Output token throughput (tok/s):", m.output_throughput);
  out += Row("Total Token throughput (tok/s):", m.total_token_throughput);
  Block(&out, "Time to First Token", "TTFT", m.ttft);
  Block(&out, "Time per Output Token (excl. 1st token)", "TPOT", m.tpot);
  Block(&out, "Inter-token Latency", "ITL", m.itl);
  out += std::string(50, '=') + "\n";
  return out;
}

nlohmann::json ResultJson(const BenchMetrics& m, const BenchInfo& info, const std::vector<RequestResult>& results) {
  nlohmann::json j;
  j["backend"] = "openai";
  j["model_id"] = info.model;
  j["base_url"] = info.base_url;
  j["endpoint"] = info.endpoint;
  j["num_prompts"] = info.num_prompts;
  // JSON has no infinity: vLLM writes "inf" as a string for an unlimited rate.
  j["request_rate"] = std::isfinite(info.request_rate) ? nlohmann::json(info.request_rate) : nlohmann::json("inf");
  j["max_concurrency"] = info.max_concurrency > 0 ? nlohmann::json(info.max_concurrency) : nlohmann::json(nullptr);
  j["random_input_len"] = info.input_len;
  j["random_output_len"] = info.output_len;
  j["seed"] = info.seed;
  j["ignore_eos"] = info.ignore_eos;
  j["duration"] = m.duration_s;
  j["completed"] = m.completed;
  j["failed"] = m.failed;
  j["total_input_tokens"] = m.total_input;
  j["total_output_tokens"] = m.total_output;
  j["request_throughput"] = m.request_throughput;
  j["output_throughput"] = m.output_throughput;
  j["total_token_throughput"] = m.total_token_throughput;
  JsonBlock(&j, "ttft", m.ttft);
  JsonBlock(&j, "tpot", m.tpot);
  JsonBlock(&j, "itl", m.itl);
  JsonBlock(&j, "e2el", m.e2el);
  auto& input_lens = j["input_lens"] = nlohmann::json::array();
  auto& output_lens = j["output_lens"] = nlohmann::json::array();
  auto& ttfts = j["ttfts"] = nlohmann::json::array();
  auto& itls = j["itls"] = nlohmann::json::array();
  auto& errors = j["errors"] = nlohmann::json::array();
  for (const RequestResult& r : results) {
    input_lens.push_back(r.prompt_len);
    output_lens.push_back(r.success ? r.output_tokens : 0);
    ttfts.push_back(r.ttft_s);
    itls.push_back(r.itl_s);
    errors.push_back(r.error);
  }
  return j;
}

}  // namespace gemmad::cli
