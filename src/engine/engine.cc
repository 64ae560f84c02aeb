// Engine: construction, the client side (Submit, Abort, Metrics) and the lifecycle
// (Start, drain, Shutdown). The loop itself is in engine_loop.cc.
#include "engine/engine.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <utility>

#include "base/check.h"
#include "base/log.h"
#include "engine/metrics_recorder.h"
#include "engine/request_record.h"
#include "engine/step_watchdog.h"

namespace gemmad::engine {

double IterationTimeoutFromEnv() {
  const char* v = std::getenv("VLLM_ENGINE_ITERATION_TIMEOUT_S");
  if (v == nullptr || *v == '\0') return 60.0;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  if (end == v || *end != '\0') {
    GEMMAD_LOG_WARNING("VLLM_ENGINE_ITERATION_TIMEOUT_S={} is not a number; using 60", v);
    return 60.0;
  }
  return s;
}

Engine::Engine(EngineConfig config, std::unique_ptr<runner::Runner> runner)
    : config_(std::move(config)),
      runner_(std::move(runner)),
      inbox_(config_.inbox_capacity),
      seed_rng_(config_.seed) {
  GEMMAD_CHECK(runner_ != nullptr, "Engine without a runner");
  scheduler_ = std::make_unique<sched::Scheduler>(config_.scheduler, config_.kv);
  const auto& kv = scheduler_->kv();
  limits_.max_model_len = config_.scheduler.max_model_len;
  limits_.vocab_size = runner_->vocab_size();
  limits_.eos_token_id = config_.eos_token_id;
  limits_.max_num_seqs = config_.scheduler.max_num_seqs;
  limits_.max_num_batched_tokens = config_.scheduler.max_num_batched_tokens;
  limits_.max_kv_sequence_tokens = scheduler_->max_sequence_tokens();
  limits_.block_size = kv.block_size();
  limits_.enable_prefix_caching = config_.kv.enable_prefix_caching;
  limits_.sampling.vocab_size = limits_.vocab_size;
  limits_.sampling.max_logprobs = config_.max_logprobs;
  limits_.sampling.max_n = config_.max_n;
  for (mm::Modality m : {mm::Modality::kImage, mm::Modality::kAudio, mm::Modality::kVideo}) {
    if (runner_->SupportsModality(m)) limits_.modalities.push_back(m);
  }
  metrics_ = std::make_unique<MetricsRecorder>(limits_.max_model_len, kv.block_size(), kv.num_usable_blocks(),
                                               config_.kv.enable_prefix_caching, config_.num_speculative_tokens);
  // Wakes an idle loop; if the inbox is full the loop is busy anyway.
  mailbox_ = std::make_shared<AbortMailbox>([this] { inbox_.TryPush(nullptr); });
}

Engine::~Engine() {
  Shutdown(std::chrono::milliseconds(0));
  mailbox_->DisableWake();  // streams (and their mailbox) may outlive the engine
}

Status Engine::Start() {
  if (started_) return FailedPreconditionError("engine already started");
  started_ = true;
  if (config_.iteration_timeout_s > 0) {
    watchdog_ = std::make_unique<StepWatchdog>(config_.iteration_timeout_s, [this](double elapsed) {
      Status s = InternalError(fmt::format(
          "engine step did not finish within VLLM_ENGINE_ITERATION_TIMEOUT_S={} s ({:.1f} s); the "
          "engine is dead", config_.iteration_timeout_s, elapsed));
      GEMMAD_LOG_ERROR("{}", s.message());
      healthy_ = false;
      accepting_ = false;
      FailAllLive(s);
    });
  }
  accepting_ = true;
  thread_ = std::thread([this] { Loop(); });
  return OkStatus();
}

void Engine::BeginDrain() { accepting_ = false; }

bool Engine::Shutdown(std::chrono::milliseconds grace) {
  accepting_ = false;
  if (!started_) return true;
  bool graceful = true;
  {
    std::unique_lock<std::mutex> lock(done_mu_);
    if (!done_cv_.wait_for(lock, grace, [&] { return loop_done_ || num_in_flight_.load() == 0; })) {
      graceful = false;
    }
  }
  stop_requested_ = true;
  inbox_.TryPush(nullptr);
  if (thread_.joinable()) thread_.join();
  inbox_.Close();
  // A Submit that passed the accepting check before the loop ended may have queued late.
  while (auto item = inbox_.TryPop()) {
    if (*item) RejectPending(*item);
  }
  watchdog_.reset();
  return graceful && num_in_flight_.load() == 0;
}

Result<std::unique_ptr<RequestStream>> Engine::Submit(ValidatedRequest validated) {
  if (!healthy_) return UnavailableError("The engine is dead (see the server log); no new requests are accepted.");
  if (!accepting_) return UnavailableError("The server is shutting down; no new requests are accepted.");
  auto pending = std::make_shared<PendingRequest>();
  EngineRequest request = std::move(validated).Release();
  pending->params = std::move(request.sampling);
  const int32_t n = pending->params.n;
  if (request.make_constraint) {
    for (int32_t i = 0; i < n; ++i) {
      auto c = request.make_constraint();
      if (!c) return InvalidArgumentError("the structured-output constraint could not be created");
      pending->constraints.push_back(std::move(c));
    }
  }
  pending->id = next_request_id_.fetch_add(1);
  pending->prompt = std::move(request.prompt_token_ids);
  pending->cache_salt = std::move(request.cache_salt);
  pending->mm_items = std::move(request.mm_items);
  pending->arrival = request.arrival_time.value_or(Clock::now());
  pending->channel = std::make_shared<OutputChannel>(pending->id, std::move(request.request_id), n,
                                                     static_cast<int32_t>(pending->prompt.size()), mailbox_);
  auto stream = std::make_unique<RequestStream>(pending->channel);
  {
    std::lock_guard<std::mutex> lock(live_mu_);
    live_.emplace(pending->id, pending->channel);
  }
  num_in_flight_.fetch_add(1);
  if (!inbox_.Push(pending)) {
    {
      std::lock_guard<std::mutex> lock(live_mu_);
      live_.erase(pending->id);
    }
    num_in_flight_.fetch_sub(1);
    // The stream's destructor would post an abort for a request the engine never saw.
    pending->channel->FailAll(UnavailableError("engine stopped"));
    return UnavailableError("The server is shutting down; no new requests are accepted.");
  }
  return stream;
}

void Engine::Abort(uint64_t id, FinishReason reason) {
  std::shared_ptr<OutputChannel> channel;
  {
    std::lock_guard<std::mutex> lock(live_mu_);
    auto it = live_.find(id);
    if (it != live_.end()) channel = it->second.lock();
  }
  if (channel) channel->RequestAbort(reason);
}

EngineMetrics Engine::Metrics() const {
  EngineMetrics m = metrics_->Snapshot();
  m.healthy = healthy_.load();
  m.draining = !accepting_.load() && healthy_.load();
  return m;
}

void Engine::FailAllLive(const Status& status) {
  std::vector<std::shared_ptr<OutputChannel>> channels;
  {
    std::lock_guard<std::mutex> lock(live_mu_);
    for (auto& [id, weak] : live_) {
      if (auto c = weak.lock()) channels.push_back(std::move(c));
    }
  }
  for (auto& c : channels) c->FailAll(status);
}

}  // namespace gemmad::engine
