// The periodic throughput line vLLM logs while serving (disabled by --disable-log-stats):
// "Avg prompt throughput: X tokens/s, Avg generation throughput: Y tokens/s, Running: N reqs,
// Waiting: M reqs, GPU KV cache usage: Z%, Prefix cache hit rate: H%", only while busy.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "engine/engine_client.h"

namespace gemmad::cli {

class StatsLogger {
 public:
  StatsLogger(const engine::EngineClient& engine, std::chrono::milliseconds interval);
  ~StatsLogger();

 private:
  void Loop();

  const engine::EngineClient& engine_;
  const std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gemmad::cli
