// MetricsRecorder: turns engine events (arrival, first scheduling, tokens, finishes, steps) into
// the vLLM metrics of EngineMetrics. The engine thread records into a working copy and
// publishes it once per loop iteration and before a finished request's final output is delivered
// (so /metrics read after a response counts it); Snapshot() copies the published one under a mutex.
#pragma once

#include <mutex>

#include "base/stopwatch.h"
#include "engine/engine_client.h"
#include "engine/metrics.h"
#include "engine/request_record.h"
#include "sched/scheduler.h"

namespace gemmad::engine {

class MetricsRecorder {
 public:
  MetricsRecorder(int64_t max_model_len, int32_t block_size, int64_t num_kv_blocks, bool prefix_caching,
                  int32_t num_speculative_tokens = 0);

  void OnArrival(const RequestRecord& rec);
  void OnScheduled(const RequestRecord& rec, const ChildState& child, Clock::time_point now);
  // Called with the child's state *before* num_output is advanced by `num_new` tokens.
  void OnTokens(const RequestRecord& rec, const ChildState& child, int32_t num_new, Clock::time_point now);
  void OnChildFinished(const RequestRecord& rec, const ChildState& child, FinishReason reason,
                       Clock::time_point now);
  void OnRequestFinished(const RequestRecord& rec);
  void OnStep(int64_t num_scheduled_tokens);
  // One verified round of speculative decoding: `num_drafts` drafted tokens, the first
  // `num_accepted` of them accepted.
  void OnDrafts(int32_t num_drafts, int32_t num_accepted);
  void SetState(const sched::Scheduler& scheduler, bool healthy, bool draining);

  void Publish();
  EngineMetrics Snapshot() const;

 private:
  EngineMetrics work_;
  mutable std::mutex mu_;
  EngineMetrics published_;
};

}  // namespace gemmad::engine
