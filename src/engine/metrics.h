// EngineMetrics: a point-in-time copy of everything /metrics shows, named after vLLM's
// `vllm:*` series (api.md §9). Plain numbers only; the server formats Prometheus text.
// Invariant: every Histogram has counts.size() == bounds.size() + 1.
#pragma once

#include <cstdint>
#include <vector>

namespace gemmad::engine {

struct Histogram {
  std::vector<double> bounds;    // upper bounds ("le"), ascending; +Inf is implicit
  std::vector<uint64_t> counts;  // per bucket (NOT cumulative); counts.back() = above bounds.back()
  double sum = 0.0;
  uint64_t count = 0;

  Histogram() = default;
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);
  // Prometheus-style cumulative counts, one per bound, then +Inf (== count).
  std::vector<uint64_t> Cumulative() const;
};

// vLLM's bucket sets (vllm/v1/metrics/loggers.py).
std::vector<double> TtftBuckets();          // 0.001 ... 2560
std::vector<double> InterTokenBuckets();    // 0.01 ... 80 (ITL and TPOT)
std::vector<double> RequestLatencyBuckets();  // 0.3 ... 7680 (e2e, queue, inference, prefill, decode)
std::vector<double> TokenCountBuckets(int64_t max_value);  // 1, 2, 5, 10, 20, 50, ... <= max_value
std::vector<double> IterationTokenBuckets();  // 1 8 16 32 ... 16384
std::vector<double> ParamsNBuckets();       // 1 2 5 10 20

struct FinishedCounts {  // vllm:request_success_total{finished_reason=...}
  uint64_t stop = 0;
  uint64_t length = 0;
  uint64_t abort = 0;
  uint64_t error = 0;
};

struct EngineMetrics {
  // Gauges.
  int64_t num_requests_running = 0;  // sequences in the running batch (children of n>1 count)
  int64_t num_requests_waiting = 0;  // queued sequences, including preempted ones
  double kv_cache_usage_perc = 0.0;  // 0..1: used blocks / usable blocks, over all KV groups
  bool healthy = true;               // false once the engine died (watchdog, runner error)
  bool draining = false;             // graceful shutdown in progress

  // Counters (the server adds `_total`).
  uint64_t prompt_tokens = 0;         // vllm:prompt_tokens (per finished-prefill request)
  uint64_t prompt_tokens_cached = 0;  // vllm:prompt_tokens_cached
  uint64_t generation_tokens = 0;     // vllm:generation_tokens
  uint64_t num_preemptions = 0;       // vllm:num_preemptions
  uint64_t prefix_cache_queries = 0;  // vllm:prefix_cache_queries (tokens looked up)
  uint64_t prefix_cache_hits = 0;     // vllm:prefix_cache_hits (tokens found)
  FinishedCounts request_success;     // vllm:request_success
  // Speculative decoding (vllm:spec_decode_*; only exported when speculation is on).
  uint64_t spec_decode_num_drafts = 0;           // verified rounds (one per sequence per step)
  uint64_t spec_decode_num_draft_tokens = 0;     // drafted tokens verified
  uint64_t spec_decode_num_accepted_tokens = 0;  // of which accepted
  std::vector<uint64_t> spec_decode_num_accepted_tokens_per_pos;  // [position] accepted at that draft index
  int32_t num_speculative_tokens = 0;  // 0: speculation off (the spec_decode series are not shown)

  // Histograms (seconds unless the name says tokens).
  Histogram time_to_first_token_seconds{TtftBuckets()};
  Histogram inter_token_latency_seconds{InterTokenBuckets()};
  Histogram request_time_per_output_token_seconds{InterTokenBuckets()};
  Histogram e2e_request_latency_seconds{RequestLatencyBuckets()};
  Histogram request_queue_time_seconds{RequestLatencyBuckets()};
  Histogram request_inference_time_seconds{RequestLatencyBuckets()};
  Histogram request_prefill_time_seconds{RequestLatencyBuckets()};
  Histogram request_decode_time_seconds{RequestLatencyBuckets()};
  Histogram request_prompt_tokens;              // TokenCountBuckets(max_model_len)
  Histogram request_generation_tokens;          // TokenCountBuckets(max_model_len)
  Histogram request_params_max_tokens;          // TokenCountBuckets(max_model_len)
  Histogram request_max_num_generation_tokens;  // TokenCountBuckets(max_model_len), per parent
  Histogram request_params_n{ParamsNBuckets()};
  Histogram iteration_tokens_total{IterationTokenBuckets()};

  // For vllm:cache_config_info (labels) and logs.
  int32_t block_size = 0;
  int64_t num_kv_blocks = 0;  // usable blocks over all groups
  bool enable_prefix_caching = false;
};

}  // namespace gemmad::engine
