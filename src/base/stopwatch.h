// Monotonic time helpers for metrics, timeouts and benchmarks.
#pragma once

#include <chrono>
#include <cstdint>

namespace gemmad {

using Clock = std::chrono::steady_clock;

inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
// Wall-clock seconds since the Unix epoch (OpenAI `created` fields).
inline int64_t UnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Stopwatch {
 public:
  Stopwatch() : start_(Clock::now()) {}
  void Reset() { start_ = Clock::now(); }
  double Seconds() const { return SecondsSince(start_); }
  double Millis() const { return Seconds() * 1e3; }

 private:
  Clock::time_point start_;
};

}  // namespace gemmad
