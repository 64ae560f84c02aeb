// StatsLogger implementation.
#include "cli/serve_stats_logger.h"

#include <fmt/format.h>

#include <string>

#include "base/log.h"

namespace gemmad::cli {

StatsLogger::StatsLogger(const engine::EngineClient& engine, std::chrono::milliseconds interval)
    : engine_(engine), interval_(interval), thread_([this] { Loop(); }) {}

StatsLogger::~StatsLogger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

// vLLM's SpecDecodingLogging line, over the interval since `last`.
static void LogSpecDecoding(const engine::EngineMetrics& last, const engine::EngineMetrics& now, double secs) {
  if (now.num_speculative_tokens <= 0) return;
  const uint64_t drafts = now.spec_decode_num_drafts - last.spec_decode_num_drafts;
  if (drafts == 0) return;
  const uint64_t drafted = now.spec_decode_num_draft_tokens - last.spec_decode_num_draft_tokens;
  const uint64_t accepted = now.spec_decode_num_accepted_tokens - last.spec_decode_num_accepted_tokens;
  std::string per_pos;
  for (size_t p = 0; p < now.spec_decode_num_accepted_tokens_per_pos.size(); ++p) {
    const uint64_t before = p < last.spec_decode_num_accepted_tokens_per_pos.size()
                                ? last.spec_decode_num_accepted_tokens_per_pos[p] : 0;
    const double rate = static_cast<double>(now.spec_decode_num_accepted_tokens_per_pos[p] - before) /
                        static_cast<double>(drafts);
    per_pos += fmt::format("{}{:.3f}", p ? ", " : "", rate);
  }
  GEMMAD_LOG_INFO(
      "SpecDecoding metrics: Mean acceptance length: {:.2f}, Accepted throughput: {:.2f} tokens/s, Drafted "
      "throughput: {:.2f} tokens/s, Accepted: {} tokens, Drafted: {} tokens, Per-position acceptance rate: {}, "
      "Avg Draft acceptance rate: {:.1f}%",
      1.0 + static_cast<double>(accepted) / static_cast<double>(drafts), static_cast<double>(accepted) / secs,
      static_cast<double>(drafted) / secs, accepted, drafted, per_pos,
      drafted ? 100.0 * static_cast<double>(accepted) / static_cast<double>(drafted) : 0.0);
}

void StatsLogger::Loop() {
  engine::EngineMetrics last = engine_.Metrics();
  auto last_time = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, interval_, [&] { return stop_; })) {
    engine::EngineMetrics now = engine_.Metrics();
    auto t = std::chrono::steady_clock::now();
    double secs = std::chrono::duration<double>(t - last_time).count();
    uint64_t prompt = now.prompt_tokens - last.prompt_tokens;
    uint64_t gen = now.generation_tokens - last.generation_tokens;
    bool busy = prompt > 0 || gen > 0 || now.num_requests_running > 0 || now.num_requests_waiting > 0;
    if (busy && secs > 0) {
      uint64_t queries = now.prefix_cache_queries - last.prefix_cache_queries;
      uint64_t hits = now.prefix_cache_hits - last.prefix_cache_hits;
      GEMMAD_LOG_INFO(
          "Avg prompt throughput: {:.1f} tokens/s, Avg generation throughput: {:.1f} tokens/s, Running: {} reqs, "
          "Waiting: {} reqs, GPU KV cache usage: {:.1f}%, Prefix cache hit rate: {:.1f}%",
          static_cast<double>(prompt) / secs, static_cast<double>(gen) / secs, now.num_requests_running,
          now.num_requests_waiting, now.kv_cache_usage_perc * 100.0,
          queries > 0 ? 100.0 * static_cast<double>(hits) / static_cast<double>(queries) : 0.0);
      LogSpecDecoding(last, now, secs);
    }
    last = now;
    last_time = t;
  }
}

}  // namespace gemmad::cli
