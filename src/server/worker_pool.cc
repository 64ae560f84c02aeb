// WorkerPool implementation.
#include "server/worker_pool.h"

#include <algorithm>

namespace gemmad::server {

WorkerPool::WorkerPool(size_t max_threads, std::chrono::milliseconds idle_timeout)
    : max_threads_(std::max<size_t>(1, max_threads)), idle_timeout_(idle_timeout) {}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Submit(std::function<void()> task) {
  std::vector<std::thread> to_join;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_) return;
    tasks_.push_back(std::move(task));
    // Join threads that exited on idle timeout (never the calling thread).
    for (auto it = threads_.begin(); it != threads_.end();) {
      if (std::find(finished_.begin(), finished_.end(), it->get_id()) != finished_.end() &&
          it->get_id() != std::this_thread::get_id()) {
        finished_.erase(std::find(finished_.begin(), finished_.end(), it->get_id()));
        to_join.push_back(std::move(*it));
        it = threads_.erase(it);
      } else {
        ++it;
      }
    }
    if (num_idle_ >= tasks_.size()) {
      cv_.notify_one();
    } else if (num_threads_ < max_threads_) {
      ++num_threads_;
      threads_.emplace_back([this] { Loop(); });
    }
  }
  for (auto& t : to_join) t.join();
}

void WorkerPool::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++num_idle_;
    bool woke = cv_.wait_for(lock, idle_timeout_, [&] { return shutdown_ || !tasks_.empty(); });
    --num_idle_;
    if (!tasks_.empty()) {
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
      continue;
    }
    if (shutdown_ || !woke) break;
  }
  --num_threads_;
  finished_.push_back(std::this_thread::get_id());
}

void WorkerPool::Shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
    cv_.notify_all();
    threads.swap(threads_);
  }
  for (auto& t : threads) {
    if (!t.joinable()) continue;
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();  // Shutdown from inside a task: this thread exits when the task returns
    } else {
      t.join();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  finished_.clear();
}

size_t WorkerPool::num_threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_threads_;
}

}  // namespace gemmad::server
