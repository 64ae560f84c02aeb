// WorkerPool: threads that run request handlers (JSON, templates, tokenizing, waiting on the
// engine, detokenizing) off the I/O thread. Grows on demand up to `max_threads` so that every
// in-flight request (each blocks on its engine stream) has a thread; idle threads exit after
// `idle_timeout`. Tasks beyond the limit wait in FIFO order.
// Invariant: after Shutdown() returns, no task runs and every thread has been joined.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gemmad::server {

class WorkerPool {
 public:
  explicit WorkerPool(size_t max_threads, std::chrono::milliseconds idle_timeout = std::chrono::seconds(30));
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);
  // Runs queued tasks to completion, then joins every thread.
  void Shutdown();

  size_t num_threads() const;

 private:
  void Loop();

  const size_t max_threads_;
  const std::chrono::milliseconds idle_timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  size_t num_threads_ = 0;
  size_t num_idle_ = 0;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;       // every thread ever started and not yet joined
  std::vector<std::thread::id> finished_;  // threads that exited (joined lazily)
};

}  // namespace gemmad::server
