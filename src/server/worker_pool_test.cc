// WorkerPool: grows to run blocking tasks concurrently, caps threads, drains on shutdown.
#include "server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>

namespace gemmad::server {
namespace {

TEST(WorkerPoolTest, RunsBlockingTasksConcurrently) {
  WorkerPool pool(16);
  std::atomic<int> arrived{0};
  std::atomic<bool> release{false};
  for (int i = 0; i < 8; ++i) {
    pool.Submit([&] {
      ++arrived;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
  }
  for (int i = 0; i < 2000 && arrived.load() < 8; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(arrived.load(), 8);  // all 8 blocked at once: one thread each
  release = true;
  pool.Shutdown();
}

TEST(WorkerPoolTest, CapsThreadsAndQueuesTheRest) {
  WorkerPool pool(2);
  std::atomic<int> done{0};
  for (int i = 0; i < 20; ++i) {
    pool.Submit([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++done;
    });
  }
  EXPECT_LE(pool.num_threads(), 2u);
  pool.Shutdown();
  EXPECT_EQ(done.load(), 20);
}

TEST(WorkerPoolTest, IdleThreadsExit) {
  WorkerPool pool(4, std::chrono::milliseconds(20));
  std::atomic<int> done{0};
  pool.Submit([&] { ++done; });
  for (int i = 0; i < 500 && (done.load() < 1 || pool.num_threads() > 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(pool.num_threads(), 0u);
  pool.Submit([&] { ++done; });
  pool.Shutdown();
  EXPECT_EQ(done.load(), 2);
}

}  // namespace
}  // namespace gemmad::server
