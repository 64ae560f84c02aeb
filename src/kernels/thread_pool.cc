// ThreadPool: tasks are claimed one by one under the mutex; jobs are coarse (a few per thread),
// so the lock is not contended in practice.
#include "kernels/thread_pool.h"

namespace gemmad::kernels {

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Drain(std::unique_lock<std::mutex>& lock) {
  while (job_ != nullptr && next_task_ < num_tasks_) {
    int64_t task = next_task_++;
    const auto* job = job_;
    lock.unlock();
    (*job)(task);
    lock.lock();
    if (++tasks_done_ == num_tasks_) done_.notify_all();
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    Drain(lock);
  }
}

void ThreadPool::Run(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
  if (num_tasks <= 0) return;
  if (workers_.empty() || num_tasks == 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  job_ = &fn;
  num_tasks_ = num_tasks;
  next_task_ = 0;
  tasks_done_ = 0;
  ++generation_;
  wake_.notify_all();
  Drain(lock);
  done_.wait(lock, [&] { return tasks_done_ == num_tasks_; });
  job_ = nullptr;
}

}  // namespace gemmad::kernels
