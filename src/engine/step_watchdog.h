// StepWatchdog: a thread that calls `on_timeout` once when one engine step runs longer than the
// timeout (VLLM_ENGINE_ITERATION_TIMEOUT_S). It cannot stop the step; the callback marks the
// engine dead and fails its requests so that clients get an error instead of hanging.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "base/stopwatch.h"

namespace gemmad::engine {

class StepWatchdog {
 public:
  StepWatchdog(double timeout_s, std::function<void(double elapsed_s)> on_timeout);
  ~StepWatchdog();
  StepWatchdog(const StepWatchdog&) = delete;
  StepWatchdog& operator=(const StepWatchdog&) = delete;

  void BeginStep();
  void EndStep();
  bool fired() const;

 private:
  void Run();

  const std::chrono::duration<double> timeout_;
  std::function<void(double)> on_timeout_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool in_step_ = false;
  bool stop_ = false;
  bool fired_ = false;
  Clock::time_point step_start_;
  std::thread thread_;
};

}  // namespace gemmad::engine
