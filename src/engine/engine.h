// Engine: the EngineClient implementation. One engine thread owns the scheduler, the KV
// bookkeeping and the runner (no locks there); HTTP threads reach it only through the bounded
// inbox, the abort mailbox and the per-request output channels. A watchdog thread fails every
// request and marks the engine unhealthy when one step exceeds the iteration timeout.
// Lifecycle: construct -> Start() -> ... -> Shutdown(grace) (or the destructor).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "base/bounded_queue.h"
#include "base/rng.h"
#include "engine/engine_client.h"
#include "engine/output_channel.h"
#include "kv/kv_cache_manager.h"
#include "runner/runner.h"
#include "sched/scheduler.h"

namespace gemmad::engine {

class MetricsRecorder;
class StepWatchdog;
struct PendingRequest;
struct RequestRecord;

struct EngineConfig {
  sched::SchedulerConfig scheduler;  // --max-num-seqs, --max-num-batched-tokens, max_model_len
  kv::KvCacheConfig kv;              // block size, KV groups, --enable-prefix-caching
  std::optional<int32_t> eos_token_id;
  int32_t max_logprobs = 20;         // --max-logprobs (-1 = vocab size)
  int32_t max_n = 16384;             // VLLM_MAX_N_SEQUENCES
  uint64_t seed = 0;                 // --seed: seeds the per-request seeds of unseeded requests
  size_t inbox_capacity = 4096;
  // VLLM_ENGINE_ITERATION_TIMEOUT_S (vLLM default 60 s); <= 0 disables the watchdog.
  double iteration_timeout_s = 60.0;
  // --speculative-config's num_speculative_tokens (0: no speculation): sizes the per-position
  // acceptance metrics. The runner drafts; the scheduler and engine verify whatever comes back.
  int32_t num_speculative_tokens = 0;
};

// VLLM_ENGINE_ITERATION_TIMEOUT_S from the environment, else 60.
double IterationTimeoutFromEnv();

class Engine : public EngineClient {
 public:
  Engine(EngineConfig config, std::unique_ptr<runner::Runner> runner);
  ~Engine() override;

  Status Start();
  // Stops accepting requests (Submit -> kUnavailable), lets in-flight requests finish for up to
  // `grace`, then aborts what is left and stops the engine thread. Returns true when everything
  // finished within the grace period. Idempotent.
  bool Shutdown(std::chrono::milliseconds grace);
  // Stops accepting new requests; in-flight ones continue (the first half of Shutdown).
  void BeginDrain();
  // Requests submitted and not yet finished (all choices).
  int64_t num_in_flight() const { return num_in_flight_.load(); }

  using EngineClient::Submit;
  Result<std::unique_ptr<RequestStream>> Submit(ValidatedRequest request) override;
  void Abort(uint64_t id, FinishReason reason = FinishReason::kAbort) override;
  EngineMetrics Metrics() const override;
  const EngineLimits& limits() const override { return limits_; }
  bool healthy() const override { return healthy_.load(); }

 private:
  // Engine thread.
  void Loop();
  bool Intake(bool block);
  void Admit(std::shared_ptr<PendingRequest> pending);
  void ProcessAborts();
  void RunStep();
  void DeliverStep(const sched::SchedulerOutput& out, runner::StepResult& result);
  // Ends one choice: retires its sequence, pushes `delta` (or an empty delta) with the finish,
  // and, when it was the last choice, forgets the request (returns true: `rec` is destroyed).
  bool FinishChild(RequestRecord& rec, int index, FinishReason reason, std::optional<int32_t> stop_token,
                   Status error, RequestOutput* delta = nullptr);
  void FinishAllChildren(RequestRecord& rec, FinishReason reason, const Status& error);
  void Die(const Status& status);
  void RejectPending(const std::shared_ptr<PendingRequest>& pending);  // never admitted
  void MarkRequestDone(uint64_t id);

  void FailAllLive(const Status& status);  // any thread

  EngineConfig config_;
  EngineLimits limits_;
  std::unique_ptr<runner::Runner> runner_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  std::unique_ptr<MetricsRecorder> metrics_;
  std::unique_ptr<StepWatchdog> watchdog_;

  BoundedQueue<std::shared_ptr<PendingRequest>> inbox_;
  std::shared_ptr<AbortMailbox> mailbox_;
  std::atomic<uint64_t> next_request_id_{1};
  std::atomic<bool> accepting_{false};
  std::atomic<bool> healthy_{true};
  std::atomic<bool> stop_requested_{false};
  std::atomic<int64_t> num_in_flight_{0};

  // Live channels, for FailAll from the watchdog (the engine thread owns everything else).
  mutable std::mutex live_mu_;
  std::unordered_map<uint64_t, std::weak_ptr<OutputChannel>> live_;

  // Engine-thread state.
  std::unordered_map<uint64_t, std::unique_ptr<RequestRecord>> records_;
  std::unordered_map<kv::SeqId, std::pair<uint64_t, int>> seq_owner_;  // seq -> (request, index)
  kv::SeqId next_seq_id_ = 1;
  Rng seed_rng_;

  std::thread thread_;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool loop_done_ = false;
  bool started_ = false;
};

}  // namespace gemmad::engine
