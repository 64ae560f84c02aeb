// ThreadPool and ParallelFor: every task runs exactly once and its writes reach the caller, over
// back-to-back jobs of varied sizes, after long idles (workers parked), with no spin, inline on 1
// thread, across destruction in every worker state, and 10k tiny jobs. Run under the tsan preset
// too: the tasks write plain (non-atomic) memory that the caller reads after Run.
#include "kernels/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/context.h"

namespace gemmad::kernels {
namespace {

using std::chrono::milliseconds;

// Runs a job of num_tasks whose tasks each write their own slot (plain memory) from an input the
// caller wrote before Run (plain memory), and checks every task ran once with the right input.
void RunAndCheck(ThreadPool& pool, int64_t num_tasks, int salt) {
  std::vector<int64_t> input(static_cast<size_t>(num_tasks));
  for (int64_t t = 0; t < num_tasks; ++t) input[static_cast<size_t>(t)] = t * 7 + salt;
  std::vector<int64_t> out(static_cast<size_t>(num_tasks), -1);
  std::vector<std::atomic<int>> runs(static_cast<size_t>(num_tasks));
  pool.Run(num_tasks, [&](int64_t t) {
    ASSERT_GE(t, 0);
    ASSERT_LT(t, num_tasks);
    runs[static_cast<size_t>(t)].fetch_add(1, std::memory_order_relaxed);
    out[static_cast<size_t>(t)] = input[static_cast<size_t>(t)] * 3;
  });
  for (int64_t t = 0; t < num_tasks; ++t) {
    ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1) << "task " << t << " of " << num_tasks;
    ASSERT_EQ(out[static_cast<size_t>(t)], (t * 7 + salt) * 3) << "task " << t;
  }
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST(ThreadPool, BackToBackJobsOfVariedSizes) {
  for (int threads : {2, 3, 5}) {
    ThreadPool pool(threads, 50);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int i = 0; i < 300; ++i) RunAndCheck(pool, 1 + (i * 37) % 97, i);
  }
}

TEST(ThreadPool, SlowTasksAllFinish) {
  ThreadPool pool(3, 50);
  std::vector<std::thread::id> who(12);
  pool.Run(12, [&](int64_t t) {
    std::this_thread::sleep_for(milliseconds(2));
    who[static_cast<size_t>(t)] = std::this_thread::get_id();
  });
  for (const auto& id : who) EXPECT_NE(id, std::thread::id());
}

// A job of `threads` tasks, each of which waits until all have started: it completes only if
// every worker takes part (a thread inside a task cannot claim another). False on a 10 s timeout.
bool RendezvousJob(ThreadPool& pool) {
  const int n = pool.num_threads();
  std::atomic<int> started{0};
  std::atomic<bool> ok{true};
  pool.Run(n, [&](int64_t) {
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < n) {
      if (std::chrono::steady_clock::now() > deadline) {
        ok = false;
        return;
      }
      std::this_thread::yield();
    }
  });
  return ok.load();
}

TEST(ThreadPool, JobsAfterLongIdleComplete) {
  for (int spin : {50, 0}) {
    ThreadPool pool(3, spin);
    RunAndCheck(pool, 8, 1);
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(milliseconds(30));  // far past the spin: workers parked
      RunAndCheck(pool, 2 + i, i);
      std::this_thread::sleep_for(milliseconds(30));
      EXPECT_TRUE(RendezvousJob(pool)) << "a parked worker did not wake (spin " << spin << ")";
    }
  }
}

TEST(ThreadPool, EveryWorkerTakesPartBackToBack) {
  ThreadPool pool(3, 50);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(RendezvousJob(pool)) << "job " << i;
}

TEST(ThreadPool, IdleWorkersParkAndUseNoCpu) {
  ThreadPool pool(3, 200);
  RunAndCheck(pool, 16, 0);
  std::this_thread::sleep_for(milliseconds(5));  // spin budget over
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(milliseconds(200));
  const double used = ProcessCpuSeconds() - before;
  // Two spinning workers would burn ~400 ms of CPU here; parked ones burn none.
  EXPECT_LT(used, 0.02) << "idle pool used " << used << " s of CPU in 200 ms";
  RunAndCheck(pool, 16, 1);
}

// Idle prefetching reads nothing back into jobs, faults on no address (null, unmapped),
// and ends with the spin budget: a range far longer than the budget allows still lets the
// workers park.
TEST(ThreadPool, IdlePrefetchLeavesJobsAndMemoryAloneAndStopsWithTheBudget) {
  ThreadPool pool(3, 200);
  std::vector<uint8_t> weights(size_t{32} << 20);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i * 13);
  for (int i = 0; i < 300; ++i) {
    switch (i % 4) {
      case 0: pool.PrefetchWhileIdle(weights.data(), weights.size()); break;
      case 1: pool.PrefetchWhileIdle(nullptr, size_t{1} << 30); break;
      case 2: pool.PrefetchWhileIdle(reinterpret_cast<const void*>(uintptr_t{0xdead0000}), size_t{8} << 20); break;
      case 3: pool.PrefetchWhileIdle(reinterpret_cast<const void*>(uintptr_t{1} << 46), size_t{1} << 30); break;
    }
    if (i % 50 == 0) std::this_thread::sleep_for(milliseconds(1));  // let the workers walk
    RunAndCheck(pool, 1 + i % 7, i);
  }
  for (size_t i = 0; i < weights.size(); ++i) ASSERT_EQ(weights[i], static_cast<uint8_t>(i * 13)) << i;

  pool.PrefetchWhileIdle(weights.data(), size_t{1} << 40);  // 1 TiB: never finished in 200 us
  std::this_thread::sleep_for(milliseconds(5));
  const double before = ProcessCpuSeconds();
  std::this_thread::sleep_for(milliseconds(200));
  const double used = ProcessCpuSeconds() - before;
  EXPECT_LT(used, 0.02) << "prefetching workers used " << used << " s of CPU past their spin budget";
  EXPECT_TRUE(RendezvousJob(pool));
  ThreadPool inline_pool(1, 50);
  inline_pool.PrefetchWhileIdle(weights.data(), weights.size());  // no workers: nothing to do
  RunAndCheck(inline_pool, 3, 0);
}

TEST(ThreadPool, ZeroSpinParksAtOnceAndStillWorks) {
  ThreadPool pool(3, 0);
  EXPECT_EQ(pool.spin_us(), 0);
  for (int i = 0; i < 500; ++i) RunAndCheck(pool, 1 + i % 9, i);
}

TEST(ThreadPool, OneThreadRunsInlineInOrder) {
  for (int threads : {1, 0}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), 1);
    std::vector<int64_t> order;
    const auto me = std::this_thread::get_id();
    pool.Run(5, [&](int64_t t) {
      EXPECT_EQ(std::this_thread::get_id(), me);
      order.push_back(t);
    });
    EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  }
  ThreadPool pool(2);  // a single task runs inline too
  const auto me = std::this_thread::get_id();
  pool.Run(1, [&](int64_t) { EXPECT_EQ(std::this_thread::get_id(), me); });
  pool.Run(0, [&](int64_t) { ADD_FAILURE() << "no tasks"; });
}

TEST(ThreadPool, DestroysWithWorkersInAnyState) {
  { ThreadPool never_used(3); }
  {
    ThreadPool parked(3, 10);
    RunAndCheck(parked, 6, 0);
    std::this_thread::sleep_for(milliseconds(20));
  }
  const auto start = std::chrono::steady_clock::now();
  {
    ThreadPool spinning(3, ThreadPool::kMaxSpinUs);  // workers would spin for a whole second
    RunAndCheck(spinning, 6, 0);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(500))
      << "destruction waited out the spin budget";
}

TEST(ThreadPool, TenThousandTinyJobs) {
  for (int spin : {50, 0}) {
    ThreadPool pool(2, spin);
    int64_t total = 0;  // plain: each job's writes must be visible to the next job's tasks
    std::vector<int64_t> slot(8, 0);
    for (int i = 0; i < 10000; ++i) {
      const int64_t n = 2 + i % 7;
      pool.Run(n, [&](int64_t t) { slot[static_cast<size_t>(t)] += t + 1; });
      total += n * (n + 1) / 2;
    }
    int64_t sum = 0;
    for (int64_t v : slot) sum += v;
    EXPECT_EQ(sum, total) << "spin " << spin;
  }
}

TEST(ThreadPool, SpinBudgetFromEnvironmentValue) {
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue(nullptr), ThreadPool::kDefaultSpinUs);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue(""), ThreadPool::kDefaultSpinUs);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("0"), 0);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("250"), 250);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("1000000"), 1000000);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("1000001"), ThreadPool::kDefaultSpinUs);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("-5"), ThreadPool::kDefaultSpinUs);
  EXPECT_EQ(ThreadPool::SpinUsFromEnvValue("12us"), ThreadPool::kDefaultSpinUs);
  EXPECT_EQ(ThreadPool(2).spin_us(), ThreadPool::DefaultSpinUs());
  EXPECT_EQ(ThreadPool(2, 7).spin_us(), 7);
}

TEST(ParallelFor, ChunkCounts) {
  EXPECT_EQ(ParallelForChunks(2, 0, 1), 0);
  EXPECT_EQ(ParallelForChunks(1, 1000, 1), 1);    // one thread: inline
  EXPECT_EQ(ParallelForChunks(2, 100, 64), 1);    // fewer than 2 chunks fit
  EXPECT_EQ(ParallelForChunks(2, 128, 64), 2);
  EXPECT_EQ(ParallelForChunks(2, 256, 43), 4);    // 5 fit: 4 (2 per thread), not 5 (3 vs 2)
  EXPECT_EQ(ParallelForChunks(2, 1000, 1), 8);    // at most 4 per thread
  EXPECT_EQ(ParallelForChunks(4, 3, 1), 3);       // fewer chunks than threads
  EXPECT_EQ(ParallelForChunks(3, 7 * 10, 10), 6);
  EXPECT_EQ(ParallelForChunks(2, 10, 0), 8);      // min_chunk < 1 counts as 1
}

// Each thread takes its own contiguous run of chunks from the front; a thread stuck in a chunk has
// the rest of its run taken by the others from the back, so the job still finishes.
TEST(ParallelFor, StuckThreadsChunksAreTakenFromTheBack) {
  ThreadPool pool(2, 50);
  ExecContext ctx{&pool};
  ASSERT_EQ(ParallelForChunks(2, 8, 1), 8);  // runs [0, 4) and [4, 8)
  std::mutex mu;
  std::vector<std::pair<int64_t, std::thread::id>> order;  // (chunk, thread) as they start
  ParallelFor(ctx, 8, 1, [&](int64_t b, int64_t e) {
    ASSERT_EQ(e, b + 1);
    {
      std::lock_guard<std::mutex> lock(mu);
      order.emplace_back(b, std::this_thread::get_id());
    }
    if (b == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  ASSERT_EQ(order.size(), 8u);
  std::thread::id stuck;
  std::vector<int64_t> by_other;
  for (const auto& [c, id] : order) {
    if (c == 0) stuck = id;
  }
  for (const auto& [c, id] : order) {
    if (id != stuck) by_other.push_back(c);
  }
  // The other thread ran its own run in order, then the stuck run's chunks from the back.
  EXPECT_EQ(by_other, (std::vector<int64_t>{4, 5, 6, 7, 3, 2, 1}));
}

TEST(ParallelFor, CoversRangeOnceInEvenChunksOfAtLeastMinChunk) {
  ThreadPool pool(3, 50);
  for (int threads : {1, 3}) {
    ExecContext ctx{threads == 1 ? nullptr : &pool};
    for (int64_t n : {1, 2, 5, 63, 64, 100, 257, 1000, 4099}) {
      for (int64_t min_chunk : {1, 7, 64, 300}) {
        std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
        std::atomic<int64_t> chunks{0}, smallest{n}, largest{0};
        ParallelFor(ctx, n, min_chunk, [&](int64_t b, int64_t e) {
          ASSERT_LT(b, e);
          for (int64_t i = b; i < e; ++i) seen[static_cast<size_t>(i)].fetch_add(1);
          chunks.fetch_add(1);
          for (int64_t v = smallest.load(); e - b < v && !smallest.compare_exchange_weak(v, e - b);) {
          }
          for (int64_t v = largest.load(); e - b > v && !largest.compare_exchange_weak(v, e - b);) {
          }
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)].load(), 1) << i;
        const int64_t want = ParallelForChunks(threads, n, min_chunk);
        EXPECT_EQ(chunks.load(), want) << n << " " << min_chunk;
        EXPECT_LE(largest.load() - smallest.load(), 1) << n << " " << min_chunk;
        if (want > 1) {
          EXPECT_GE(smallest.load(), min_chunk) << n << " " << min_chunk;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
