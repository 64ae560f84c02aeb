// ThreadPool: a fixed set of worker threads that run ParallelFor chunks, one job at a time; the
// calling thread takes part in its own job.
//
// Spin, then park. After a job a worker spins for `spin_us` (pause instruction, checking a steady
// clock every few pauses; in the budget's second half it also yields at each check) watching the
// job generation, so the back-to-back jobs of a decode step (hundreds per step, µs apart) start
// without a kernel round trip. Past the budget it parks on a futex (std::atomic::wait), so an idle
// pool costs no CPU and, on 2 cores, a bounded spinner never holds a core that the HTTP threads
// need for longer than the budget. Run() pays for a notify only
// when some worker is actually parked. The caller's completion wait is the same: spin up to the
// budget on the counter of unfinished tasks, then block until the last task's thread wakes it.
//
// Tasks are claimed lock-free: one 64-bit word holds (generation << 32 | unclaimed tasks) and is
// claimed by compare-exchange, so a worker that is late from an earlier job can never take a task
// of the next one. Memory ordering: the job is published by a release store of that word and read
// after an acquire claim; every task's writes are released by its decrement of the unfinished
// counter, which the caller acquires before Run returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace gemmad::kernels {

class ThreadPool {
 public:
  static constexpr int kDefaultSpinUs = 50;
  static constexpr int kMaxSpinUs = 1'000'000;

  // The spin budget of ThreadPool(int): GEMMAD_POOL_SPIN_US when it is set to a whole number in
  // [0, kMaxSpinUs] (0 = park at once, never spin), else kDefaultSpinUs. Read once per process.
  static int DefaultSpinUs();
  // DefaultSpinUs's reading of one value of GEMMAD_POOL_SPIN_US (nullptr = unset); for tests.
  static int SpinUsFromEnvValue(const char* value);

  // num_threads counts the caller: 1 (or less) means "no workers" (everything runs inline).
  explicit ThreadPool(int num_threads) : ThreadPool(num_threads, DefaultSpinUs()) {}
  // spin_us: how long a worker spins after a job (and the caller after its own tasks) before
  // parking; 0 parks at once. An explicit value is not overridden by the environment.
  ThreadPool(int num_threads, int spin_us);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }
  int spin_us() const { return static_cast<int>(spin_ns_ / 1000); }

  // Asks idle workers to bring [data, data + bytes) towards their caches (software prefetch, one
  // 64-byte line at a time) while they spin between jobs: the next job's weights, fetched while the
  // caller runs a single-threaded op (attention, a norm) and the memory system would otherwise
  // idle. A worker drops the range when a job arrives or its spin budget ends; a later call
  // replaces the range. Prefetching never faults and never changes memory, so any address range
  // is safe; it is only useful for data that stays mapped (weights). Called by the Run thread.
  void PrefetchWhileIdle(const void* data, size_t bytes);

  // Calls fn(task) for task in [0, num_tasks) across the workers and the caller; returns when
  // all tasks are done (their writes visible to the caller). Not reentrant: fn must not call Run
  // on the same pool, and one thread at a time calls Run. num_tasks < 2^31.
  void Run(int64_t num_tasks, const std::function<void(int64_t)>& fn);

 private:
  void WorkerLoop();
  // Claims and runs tasks of the current job until none is left unclaimed.
  void Drain();
  // The caller's wait for the job's last task.
  void WaitDone();

  const int64_t spin_ns_;
  std::vector<std::thread> workers_;

  // Written by Run (and the destructor), watched by idle workers.
  alignas(64) std::atomic<uint32_t> wake_gen_{0};
  std::atomic<int> parked_{0};  // workers in (or about to enter) wake_gen_.wait
  std::atomic<bool> stop_{false};

  // The job: plain fields published by the release store of claim_.
  alignas(64) std::atomic<uint64_t> claim_{0};  // generation << 32 | unclaimed task count
  const std::function<void(int64_t)>* job_ = nullptr;
  int64_t num_tasks_ = 0;

  // The idle prefetch range (PrefetchWhileIdle): bumping hint_seq_ publishes a new one; each
  // worker walks its own copy and restarts when the sequence changes.
  alignas(64) std::atomic<uint64_t> hint_seq_{0};
  std::atomic<const char*> hint_data_{nullptr};
  std::atomic<size_t> hint_bytes_{0};

  // Completion: tasks not yet finished, and whether the caller is (about to be) blocked on it.
  alignas(64) std::atomic<uint32_t> unfinished_{0};
  std::atomic<bool> caller_waiting_{false};
};

}  // namespace gemmad::kernels
