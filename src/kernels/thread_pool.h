// ThreadPool: a fixed set of worker threads that run ParallelFor chunks. Workers wait on a
// condition variable between jobs (never spin), so an idle pool costs no CPU. One job at a time;
// the calling thread takes part in its own job. Deeper tuning (spin-then-park) is issue 10's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gemmad::kernels {

class ThreadPool {
 public:
  // num_threads counts the caller: 1 means "no workers" (everything runs inline).
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls fn(task) for task in [0, num_tasks) across the workers and the caller; returns when
  // all tasks are done. Not reentrant: fn must not call Run on the same pool.
  void Run(int64_t num_tasks, const std::function<void(int64_t)>& fn);

 private:
  void WorkerLoop();
  // Runs unclaimed tasks of the current job; `lock` holds mu_ on entry and exit.
  void Drain(std::unique_lock<std::mutex>& lock);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t num_tasks_ = 0;
  int64_t next_task_ = 0;
  int64_t tasks_done_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace gemmad::kernels
