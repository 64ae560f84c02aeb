// StepWatchdog: waits for the current step's deadline on a condition variable.
#include "engine/step_watchdog.h"

#include <utility>

namespace gemmad::engine {

StepWatchdog::StepWatchdog(double timeout_s, std::function<void(double)> on_timeout)
    : timeout_(timeout_s), on_timeout_(std::move(on_timeout)), thread_([this] { Run(); }) {}

StepWatchdog::~StepWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void StepWatchdog::BeginStep() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_step_ = true;
    step_start_ = Clock::now();
  }
  cv_.notify_all();
}

void StepWatchdog::EndStep() {
  std::lock_guard<std::mutex> lock(mu_);
  in_step_ = false;
}

bool StepWatchdog::fired() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fired_;
}

void StepWatchdog::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (!in_step_ || fired_) {
      cv_.wait(lock);
      continue;
    }
    const auto start = step_start_;
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(timeout_);
    cv_.wait_until(lock, deadline, [&] { return stop_ || !in_step_ || step_start_ != start; });
    if (stop_ || !in_step_ || step_start_ != start || Clock::now() < deadline) continue;
    fired_ = true;
    const double elapsed = SecondsSince(start);
    lock.unlock();
    on_timeout_(elapsed);
    lock.lock();
  }
}

}  // namespace gemmad::engine
