// Prometheus exposition of EngineMetrics (see prometheus.h).
#include "server/prometheus.h"

#include <cmath>

#include <fmt/format.h>

namespace gemmad::server {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

class Writer {
 public:
  explicit Writer(const MetricsLabels& l) : labels_(fmt::format("model_name=\"{}\",engine=\"0\"", Escape(l.model_name))),
                                            created_(l.created_unix) {}

  void Gauge(const char* name, const char* help, double v, const std::string& extra = "") {
    Head(name, help, "gauge");
    Sample(name, extra, v);
  }
  void Counter(const char* name, const char* help, double v) {
    Head(name, help, "counter");
    Sample(std::string(name) + "_total", "", v);
    Sample(std::string(name) + "_created", "", created_);
  }
  void CounterLabeled(const char* name, const char* help, const char* label,
                      const std::vector<std::pair<std::string, double>>& values) {
    Head(name, help, "counter");
    for (const auto& [value, v] : values) Sample(std::string(name) + "_total", fmt::format("{}=\"{}\"", label, value), v);
    for (const auto& [value, v] : values) {
      (void)v;
      Sample(std::string(name) + "_created", fmt::format("{}=\"{}\"", label, value), created_);
    }
  }
  void Histogram(const char* name, const char* help, const engine::Histogram& h) {
    Head(name, help, "histogram");
    std::vector<uint64_t> cumulative = h.Cumulative();
    for (size_t i = 0; i < h.bounds.size(); ++i) {
      Sample(std::string(name) + "_bucket", fmt::format("le=\"{}\"", GoFloat(h.bounds[i])),
             static_cast<double>(cumulative[i]));
    }
    Sample(std::string(name) + "_bucket", "le=\"+Inf\"", static_cast<double>(h.count));
    Sample(std::string(name) + "_count", "", static_cast<double>(h.count));
    Sample(std::string(name) + "_sum", "", h.sum);
    Sample(std::string(name) + "_created", "", created_);
  }
  std::string Take() { return std::move(out_); }

 private:
  void Head(const char* name, const char* help, const char* type) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void Sample(const std::string& name, const std::string& extra, double v) {
    out_ += fmt::format("{}{{{}{}{}}} {}\n", name, labels_, extra.empty() ? "" : ",", extra, GoFloat(v));
  }

  std::string labels_;
  double created_;
  std::string out_;
};

}  // namespace

std::string GoFloat(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  std::string s = fmt::format("{}", v);  // shortest round-trip, like Python repr
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  size_t dot = s.find('.');
  if (v > 0 && dot != std::string::npos && dot > 6 && s.find('e') == std::string::npos) {
    std::string mantissa = s.substr(0, 1) + "." + s.substr(1, dot - 1) + s.substr(dot + 1);
    while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.')) mantissa.pop_back();
    return fmt::format("{}e+0{}", mantissa, dot - 1);
  }
  return s;
}

std::string FormatPrometheus(const engine::EngineMetrics& m, const MetricsLabels& labels) {
  Writer w(labels);
  w.Gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
          static_cast<double>(m.num_requests_running));
  w.Gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
          static_cast<double>(m.num_requests_waiting));
  w.Gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", m.kv_cache_usage_perc);
  w.Gauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", 1.0,
          fmt::format("block_size=\"{}\",enable_prefix_caching=\"{}\",num_gpu_blocks=\"{}\"", m.block_size,
                      m.enable_prefix_caching ? "True" : "False", m.num_kv_blocks));
  w.Counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
            static_cast<double>(m.num_preemptions));
  w.Counter("vllm:prompt_tokens", "Number of prefill tokens processed.", static_cast<double>(m.prompt_tokens));
  w.Counter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local prefix cache).",
            static_cast<double>(m.prompt_tokens_cached));
  w.Counter("vllm:generation_tokens", "Number of generation tokens processed.",
            static_cast<double>(m.generation_tokens));
  w.Counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
            static_cast<double>(m.prefix_cache_queries));
  w.Counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            static_cast<double>(m.prefix_cache_hits));
  if (m.num_speculative_tokens > 0) {  // vLLM's SpecDecodingProm series
    w.Counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.",
              static_cast<double>(m.spec_decode_num_drafts));
    w.Counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.",
              static_cast<double>(m.spec_decode_num_draft_tokens));
    w.Counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.",
              static_cast<double>(m.spec_decode_num_accepted_tokens));
    std::vector<std::pair<std::string, double>> per_pos;
    for (size_t i = 0; i < m.spec_decode_num_accepted_tokens_per_pos.size(); ++i) {
      per_pos.emplace_back(std::to_string(i), static_cast<double>(m.spec_decode_num_accepted_tokens_per_pos[i]));
    }
    w.CounterLabeled("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted tokens per draft position.",
                     "position", per_pos);
  }
  w.CounterLabeled("vllm:request_success", "Count of successfully processed requests.", "finished_reason",
                   {{"stop", static_cast<double>(m.request_success.stop)},
                    {"length", static_cast<double>(m.request_success.length)},
                    {"abort", static_cast<double>(m.request_success.abort)},
                    {"error", static_cast<double>(m.request_success.error)}});
  w.Histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", m.request_prompt_tokens);
  w.Histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", m.request_generation_tokens);
  w.Histogram("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", m.iteration_tokens_total);
  w.Histogram("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.",
              m.request_max_num_generation_tokens);
  w.Histogram("vllm:request_params_n", "Histogram of the n request parameter.", m.request_params_n);
  w.Histogram("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.",
              m.request_params_max_tokens);
  w.Histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
              m.time_to_first_token_seconds);
  w.Histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
              m.inter_token_latency_seconds);
  w.Histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.",
              m.request_time_per_output_token_seconds);
  w.Histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
              m.e2e_request_latency_seconds);
  w.Histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
              m.request_queue_time_seconds);
  w.Histogram("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.",
              m.request_inference_time_seconds);
  w.Histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
              m.request_prefill_time_seconds);
  w.Histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
              m.request_decode_time_seconds);
  return w.Take();
}

}  // namespace gemmad::server
