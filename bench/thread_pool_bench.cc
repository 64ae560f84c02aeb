// Dispatch cost of kernels::ThreadPool: how long one job takes from Run() to its return, for an
// empty job and a ~20 µs one, back to back and after an idle gap (when the workers have parked).
//
//   BM_Run/work_us:<w>/gap_us:<g>/threads:<t>
//       Run(t tasks), each task busy for w/t µs of wall time (so w µs of work in all; 0 = empty
//       tasks that write one slot each). g = 0: jobs back to back; g = 1000: the thread sleeps
//       1 ms (untimed) before each job. Time = wall time of the Run call (manual time).
//   BM_ParallelFor/work_us:<w>/gap_us:<g>/threads:<t>
//       The kernels' path: ParallelFor over 1024 items (min_chunk 1: 4 chunks per thread), each
//       chunk busy for its share of w µs.
//
// Counters: overhead_us = wall µs per job minus the ideal w/t; worker_share = fraction of tasks
// run off the calling thread (0.5 at 2 threads = perfect split); cpu_us = process CPU µs per
// job including the gap (the spin budget shows up here). Only ThreadPool(int) is used, so the
// file also builds against older pools (docs/cpu-performance.md §7 compares them this way); the
// spin budget comes from GEMMAD_POOL_SPIN_US. The 2 cores may be shared: use
// --benchmark_repetitions and read best / median.
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <functional>
#include <memory>
#include <thread>

#include "kernels/context.h"
#include "kernels/thread_pool.h"

namespace {

using gemmad::kernels::ExecContext;
using gemmad::kernels::ParallelFor;
using gemmad::kernels::ThreadPool;
using Clock = std::chrono::steady_clock;

ThreadPool& Pool(int threads) {
  static std::unique_ptr<ThreadPool> pools[9];
  auto& p = pools[threads];
  if (!p) p = std::make_unique<ThreadPool>(threads);
  return *p;
}

void BusyFor(double us) {
  if (us <= 0) return;
  const auto end = Clock::now() + std::chrono::nanoseconds(static_cast<int64_t>(us * 1e3));
  while (Clock::now() < end) {
  }
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Times `job` once per iteration (after the gap), and sets the shared counters.
template <typename Job>
void TimeJobs(benchmark::State& state, double work_us, int threads, std::atomic<int64_t>& off_caller,
              int64_t tasks_per_job, Job job) {
  const int64_t gap_us = state.range(1);
  off_caller = 0;
  const double cpu0 = ProcessCpuSeconds();
  double wall = 0;
  for (auto _ : state) {
    if (gap_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
    const auto t0 = Clock::now();
    job();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    wall += s;
    state.SetIterationTime(s);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["overhead_us"] = wall / n * 1e6 - work_us / threads;
  state.counters["worker_share"] =
      static_cast<double>(off_caller.load()) / (n * static_cast<double>(tasks_per_job));
  state.counters["cpu_us"] = (ProcessCpuSeconds() - cpu0) / n * 1e6;
}

void BM_Run(benchmark::State& state) {
  const double work_us = static_cast<double>(state.range(0));
  const int threads = static_cast<int>(state.range(2));
  ThreadPool& pool = Pool(threads);
  std::atomic<int64_t> off_caller{0};
  int64_t slots[16] = {};
  const auto caller = std::this_thread::get_id();
  const std::function<void(int64_t)> task = [&](int64_t t) {
    BusyFor(work_us / threads);
    slots[t] += 1;
    if (std::this_thread::get_id() != caller) off_caller.fetch_add(1, std::memory_order_relaxed);
  };
  TimeJobs(state, work_us, threads, off_caller, threads, [&] { pool.Run(threads, task); });
  benchmark::DoNotOptimize(slots);
}

void BM_ParallelFor(benchmark::State& state) {
  const double work_us = static_cast<double>(state.range(0));
  const int threads = static_cast<int>(state.range(2));
  ThreadPool& pool = Pool(threads);
  ExecContext ctx{&pool};
  constexpr int64_t kItems = 1024;
  std::atomic<int64_t> off_caller{0}, chunks{0};
  const auto caller = std::this_thread::get_id();
  const std::function<void(int64_t, int64_t)> body = [&](int64_t b, int64_t e) {
    BusyFor(work_us * static_cast<double>(e - b) / kItems);
    chunks.fetch_add(1, std::memory_order_relaxed);
    if (std::this_thread::get_id() != caller) off_caller.fetch_add(1, std::memory_order_relaxed);
  };
  ParallelFor(ctx, kItems, 1, body);  // learn the chunk count
  const int64_t per_job = chunks.exchange(0);
  TimeJobs(state, work_us, threads, off_caller, per_job, [&] { ParallelFor(ctx, kItems, 1, body); });
}

// Back to back: as many jobs as Google Benchmark wants. After a gap: a fixed 1000 jobs (~1.1 s),
// since the untimed sleeps would otherwise run for minutes before the timed total is reached.
void BackToBack(benchmark::internal::Benchmark* b) {
  b->ArgNames({"work_us", "gap_us", "threads"})->Args({0, 0, 2})->Args({20, 0, 2});
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}
void AfterGap(benchmark::internal::Benchmark* b) {
  b->ArgNames({"work_us", "gap_us", "threads"})->Args({0, 1000, 2})->Args({20, 1000, 2});
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(1000);
}

BENCHMARK(BM_Run)->Apply(BackToBack);
BENCHMARK(BM_Run)->Apply(AfterGap);
BENCHMARK(BM_ParallelFor)->Apply(BackToBack);
BENCHMARK(BM_ParallelFor)->Apply(AfterGap);

}  // namespace

BENCHMARK_MAIN();
