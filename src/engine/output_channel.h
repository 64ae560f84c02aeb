// OutputChannel: the shared state between the engine thread (producer of RequestOutput deltas)
// and the RequestStream a HTTP thread reads. Also carries abort requests back to the engine.
// Invariant: each of the n choices receives exactly one finished delta, after which Push for
// that index is a bug; kEnd is reported once all n finished deltas were read.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine_client.h"

namespace gemmad::engine {

// Where aborts go: the engine drains it at the start of every step. `wake` nudges an idle
// engine loop. Thread-safe.
class AbortMailbox {
 public:
  explicit AbortMailbox(std::function<void()> wake) : wake_(std::move(wake)) {}
  void Post(uint64_t id, FinishReason reason);
  std::vector<std::pair<uint64_t, FinishReason>> Drain();
  // Drops `wake` (the engine is going away; streams may outlive it). Returns once no call of
  // `wake` is running.
  void DisableWake();

 private:
  std::mutex mu_;  // guards pending_
  std::vector<std::pair<uint64_t, FinishReason>> pending_;
  std::mutex wake_mu_;  // guards wake_ and serialises its calls; `wake` may call Drain
  std::function<void()> wake_;
};

class OutputChannel {
 public:
  OutputChannel(uint64_t id, std::string request_id, int32_t n, int32_t num_prompt_tokens,
                std::shared_ptr<AbortMailbox> mailbox);

  uint64_t id() const { return id_; }
  const std::string& request_id() const { return request_id_; }
  int32_t n() const { return n_; }
  int32_t num_prompt_tokens() const { return num_prompt_tokens_; }

  // Engine side.
  void Push(RequestOutput output);

  // Reader side (see RequestStream).
  RequestStream::ReadStatus Read(RequestOutput* out, std::chrono::milliseconds timeout,
                                 bool wait_forever);
  void SetNotifier(std::function<void()> notify);
  void RequestAbort(FinishReason reason);
  bool all_finished() const;        // every choice pushed its final delta
  bool abort_requested() const { return abort_state_.load(std::memory_order_acquire) != 0; }
  FinishReason abort_reason() const {
    return static_cast<FinishReason>(abort_state_.load(std::memory_order_acquire) - 1);
  }

  // Ends every unfinished choice with finish_reason error and `status`, and drops whatever the
  // engine pushes afterwards (used when the engine dies, possibly from another thread).
  void FailAll(const Status& status);

 private:
  RequestStream::ReadStatus TakeLocked(RequestOutput* out);

  const uint64_t id_;
  const std::string request_id_;
  const int32_t n_;
  const int32_t num_prompt_tokens_;
  std::shared_ptr<AbortMailbox> mailbox_;
  std::atomic<int> abort_state_{0};  // 0 = none, else 1 + the FinishReason asked for

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<RequestOutput> pending_;
  std::vector<bool> finished_;  // per index, as pushed
  int32_t num_finished_pushed_ = 0;
  int32_t num_finished_read_ = 0;
  bool failed_ = false;  // FailAll ran: later pushes are dropped
  std::mutex notify_mu_;  // guards notify_ and serialises its calls
  std::function<void()> notify_;
};

// Appends `next` (a later delta of the same index) to `into`.
void MergeOutput(RequestOutput* into, RequestOutput&& next);

}  // namespace gemmad::engine
