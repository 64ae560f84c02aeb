// ThreadPool: spin-then-park workers, compare-exchange task claiming, spin-then-block completion.
// The parking protocols are Dekker-style: each side stores its own flag, then loads the other's,
// both seq_cst, so that either the sleeper sees the new value or the waker sees the sleeper.
#include "kernels/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/check.h"
#include "base/log.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace gemmad::kernels {
namespace {

constexpr uint64_t kCountMask = 0xffffffffu;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  std::this_thread::yield();
#endif
}

// Spins until done() holds or budget_ns has passed; returns done(). Checks the clock (vDSO, ~20 ns)
// every 16 pauses so the budget is time, not an iteration count that varies by CPU. The second
// half of the budget also yields at each check, so that a spinner on an oversubscribed core (more
// threads than cores, or the HTTP threads runnable) hands it over instead of holding it.
// Idle work: in place of each pause it calls work() (a few cache lines of prefetching) until that
// returns false (nothing left), and once per clock check after that (a new range may have come).
template <typename Done, typename Work>
bool SpinWorkingUntil(int64_t budget_ns, Done done, Work work) {
  if (done()) return true;
  if (budget_ns <= 0) return false;
  const auto start = std::chrono::steady_clock::now();
  const auto yield_from = start + std::chrono::nanoseconds(budget_ns / 2);
  const auto deadline = start + std::chrono::nanoseconds(budget_ns);
  bool working = true;
  while (true) {
    for (int i = 0; i < 16; ++i) {
      if (!working || !(working = work())) CpuRelax();
      if (done()) return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return done();
    if (now >= yield_from) std::this_thread::yield();
    if (!working) working = work();
  }
}

template <typename Done>
bool SpinUntil(int64_t budget_ns, Done done) {
  return SpinWorkingUntil(budget_ns, done, [] { return false; });
}

inline void PrefetchLine(const char* p) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_prefetch(p, _MM_HINT_T1);
#else
  __builtin_prefetch(p, 0, 2);
#endif
}

constexpr size_t kLine = 64;
constexpr size_t kLinesPerWork = 4;  // lines prefetched per work() call, between checks for a job

}  // namespace

void ThreadPool::PrefetchWhileIdle(const void* data, size_t bytes) {
  if (workers_.empty()) return;
  hint_data_.store(static_cast<const char*>(data), std::memory_order_relaxed);
  hint_bytes_.store(bytes, std::memory_order_relaxed);
  hint_seq_.fetch_add(1, std::memory_order_release);
}

int ThreadPool::SpinUsFromEnvValue(const char* v) {
  if (v == nullptr || *v == '\0') return kDefaultSpinUs;
  std::string_view s(v);
  int64_t us = 0;
  bool ok = s.size() <= 7;
  for (char c : s) {
    if (c < '0' || c > '9') ok = false;
    if (ok) us = us * 10 + (c - '0');
  }
  if (!ok || us > kMaxSpinUs) {
    GEMMAD_LOG_WARNING("GEMMAD_POOL_SPIN_US=\"{}\" is not a whole number of microseconds in [0, {}]; "
                       "using {}", s, kMaxSpinUs, kDefaultSpinUs);
    return kDefaultSpinUs;
  }
  return static_cast<int>(us);
}

int ThreadPool::DefaultSpinUs() {
  static const int spin_us = SpinUsFromEnvValue(std::getenv("GEMMAD_POOL_SPIN_US"));
  return spin_us;
}

ThreadPool::ThreadPool(int num_threads, int spin_us) : spin_ns_(int64_t{spin_us} * 1000) {
  GEMMAD_CHECK(spin_us >= 0 && spin_us <= kMaxSpinUs, "spin_us {} out of range", spin_us);
  if (num_threads > 1) workers_.reserve(static_cast<size_t>(num_threads - 1));
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  wake_gen_.fetch_add(1);  // releases stop_ to whoever sees the new generation
  wake_gen_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop() {
  uint32_t seen = 0;  // the generation at construction
  uint64_t hint_seen = 0;
  uintptr_t next = 0, end = 0;  // this worker's walk over the idle prefetch range (addresses)
  while (true) {
    uint32_t gen = seen;
    const auto changed = [&] { return (gen = wake_gen_.load(std::memory_order_acquire)) != seen; };
    const auto prefetch = [&] {
      const uint64_t h = hint_seq_.load(std::memory_order_acquire);
      if (h != hint_seen) {
        hint_seen = h;
        next = reinterpret_cast<uintptr_t>(hint_data_.load(std::memory_order_relaxed));
        const size_t bytes = hint_bytes_.load(std::memory_order_relaxed);
        end = next + std::min<uintptr_t>(bytes, UINTPTR_MAX - next);
      }
      if (next >= end) return false;
      for (size_t i = 0; i < kLinesPerWork && next < end; ++i, next += kLine) {
        PrefetchLine(reinterpret_cast<const char*>(next));
      }
      return true;
    };
    if (!SpinWorkingUntil(spin_ns_, changed, prefetch)) {
      parked_.fetch_add(1);
      while ((gen = wake_gen_.load()) == seen) wake_gen_.wait(seen);
      parked_.fetch_sub(1, std::memory_order_relaxed);
    }
    seen = gen;
    if (stop_.load(std::memory_order_relaxed)) return;
    Drain();
    next = end;  // a job ran: the range was meant for it (or is stale now)
  }
}

void ThreadPool::Drain() {
  uint64_t c = claim_.load(std::memory_order_acquire);
  while ((c & kCountMask) != 0) {
    if (!claim_.compare_exchange_weak(c, c - 1, std::memory_order_acquire,
                                      std::memory_order_acquire)) {
      continue;  // c was reloaded
    }
    // Safe to read: this claim synchronises with the Run that published the job, and Run cannot
    // publish another before this task's decrement below.
    const int64_t task = num_tasks_ - static_cast<int64_t>(c & kCountMask);
    (*job_)(task);
    if (unfinished_.fetch_sub(1) == 1 && caller_waiting_.load()) unfinished_.notify_one();
    c = claim_.load(std::memory_order_acquire);
  }
}

void ThreadPool::WaitDone() {
  const auto done = [&] { return unfinished_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(spin_ns_, done)) return;
  caller_waiting_.store(true);
  for (uint32_t left; (left = unfinished_.load()) != 0;) unfinished_.wait(left);
}

void ThreadPool::Run(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
  if (num_tasks <= 0) return;
  if (workers_.empty() || num_tasks == 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  GEMMAD_CHECK(num_tasks < (int64_t{1} << 31), "ThreadPool::Run: {} tasks", num_tasks);
  // The previous job is fully finished (WaitDone), so no thread reads these until the store below.
  job_ = &fn;
  num_tasks_ = num_tasks;
  unfinished_.store(static_cast<uint32_t>(num_tasks), std::memory_order_relaxed);
  caller_waiting_.store(false, std::memory_order_relaxed);
  const uint32_t gen = wake_gen_.load(std::memory_order_relaxed) + 1;
  claim_.store((uint64_t{gen} << 32) | static_cast<uint64_t>(num_tasks), std::memory_order_release);
  wake_gen_.store(gen);
  if (parked_.load() > 0) wake_gen_.notify_all();
  Drain();
  WaitDone();
}

}  // namespace gemmad::kernels
