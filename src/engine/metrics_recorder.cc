// MetricsRecorder: vLLM's per-request latency breakdown (queue, prefill, decode, TTFT, ITL,
// TPOT, e2e) and counters.
#include "engine/metrics_recorder.h"

#include <algorithm>

namespace gemmad::engine {
namespace {

double Sec(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

MetricsRecorder::MetricsRecorder(int64_t max_model_len, int32_t block_size, int64_t num_kv_blocks,
                                 bool prefix_caching, int32_t num_speculative_tokens) {
  const auto tokens = TokenCountBuckets(max_model_len);
  work_.request_prompt_tokens = Histogram(tokens);
  work_.request_generation_tokens = Histogram(tokens);
  work_.request_params_max_tokens = Histogram(tokens);
  work_.request_max_num_generation_tokens = Histogram(tokens);
  work_.block_size = block_size;
  work_.num_kv_blocks = num_kv_blocks;
  work_.enable_prefix_caching = prefix_caching;
  work_.num_speculative_tokens = num_speculative_tokens;
  work_.spec_decode_num_accepted_tokens_per_pos.assign(static_cast<size_t>(std::max(0, num_speculative_tokens)), 0);
  published_ = work_;
}

void MetricsRecorder::OnArrival(const RequestRecord& rec) {
  work_.request_params_n.Observe(rec.n);
  work_.request_params_max_tokens.Observe(rec.max_tokens);
}

void MetricsRecorder::OnScheduled(const RequestRecord& rec, const ChildState& child, Clock::time_point now) {
  work_.request_queue_time_seconds.Observe(Sec(rec.arrival, now));
  (void)child;
}

void MetricsRecorder::OnTokens(const RequestRecord& rec, const ChildState& child, int32_t num_new,
                               Clock::time_point now) {
  if (num_new <= 0) return;
  if (child.num_output == 0) {
    work_.time_to_first_token_seconds.Observe(Sec(rec.arrival, now));
    work_.prompt_tokens += static_cast<uint64_t>(rec.num_prompt);
    work_.prompt_tokens_cached += static_cast<uint64_t>(child.num_cached);
  } else {
    work_.inter_token_latency_seconds.Observe(Sec(child.last_token, now));
  }
  work_.generation_tokens += static_cast<uint64_t>(num_new);
}

void MetricsRecorder::OnChildFinished(const RequestRecord& rec, const ChildState& child, FinishReason reason,
                                      Clock::time_point now) {
  switch (reason) {
    case FinishReason::kStop: ++work_.request_success.stop; break;
    case FinishReason::kLength: ++work_.request_success.length; break;
    case FinishReason::kAbort: ++work_.request_success.abort; break;
    case FinishReason::kError: ++work_.request_success.error; break;
    case FinishReason::kNone: break;
  }
  work_.e2e_request_latency_seconds.Observe(Sec(rec.arrival, now));
  work_.request_prompt_tokens.Observe(rec.num_prompt);
  work_.request_generation_tokens.Observe(child.num_output);
  if (child.scheduled) {
    work_.request_inference_time_seconds.Observe(Sec(child.first_scheduled, now));
    if (child.num_output > 0) {
      work_.request_prefill_time_seconds.Observe(Sec(child.first_scheduled, child.first_token));
      const double decode = Sec(child.first_token, now);
      work_.request_decode_time_seconds.Observe(decode);
      if (child.num_output > 1) {
        work_.request_time_per_output_token_seconds.Observe(decode / (child.num_output - 1));
      }
    }
  }
}

void MetricsRecorder::OnRequestFinished(const RequestRecord& rec) {
  int32_t max_gen = 0;
  for (const auto& c : rec.children) max_gen = std::max(max_gen, c.num_output);
  work_.request_max_num_generation_tokens.Observe(max_gen);
}

void MetricsRecorder::OnDrafts(int32_t num_drafts, int32_t num_accepted) {
  ++work_.spec_decode_num_drafts;
  work_.spec_decode_num_draft_tokens += static_cast<uint64_t>(num_drafts);
  work_.spec_decode_num_accepted_tokens += static_cast<uint64_t>(num_accepted);
  auto& per_pos = work_.spec_decode_num_accepted_tokens_per_pos;
  for (int32_t p = 0; p < num_accepted; ++p) {
    if (static_cast<size_t>(p) >= per_pos.size()) per_pos.resize(static_cast<size_t>(p) + 1, 0);
    ++per_pos[static_cast<size_t>(p)];
  }
}

void MetricsRecorder::OnStep(int64_t num_scheduled_tokens) {
  work_.iteration_tokens_total.Observe(static_cast<double>(num_scheduled_tokens));
}

void MetricsRecorder::SetState(const sched::Scheduler& scheduler, bool healthy, bool draining) {
  work_.num_requests_running = scheduler.num_running();
  work_.num_requests_waiting = scheduler.num_waiting();
  work_.kv_cache_usage_perc = scheduler.kv().Usage();
  work_.num_preemptions = scheduler.stats().num_preemptions;
  work_.prefix_cache_queries = scheduler.stats().prefix_cache_queries;
  work_.prefix_cache_hits = scheduler.stats().prefix_cache_hits;
  work_.healthy = healthy;
  work_.draining = draining;
}

void MetricsRecorder::Publish() {
  std::lock_guard<std::mutex> lock(mu_);
  published_ = work_;
}

EngineMetrics MetricsRecorder::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_;
}

}  // namespace gemmad::engine
