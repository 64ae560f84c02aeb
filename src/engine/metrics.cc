// Histogram arithmetic and vLLM's bucket boundaries (vllm/v1/metrics/loggers.py).
#include "engine/metrics.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace gemmad::engine {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds(std::move(upper_bounds)), counts(bounds.size() + 1, 0) {
  GEMMAD_CHECK(std::is_sorted(bounds.begin(), bounds.end()), "histogram bounds not sorted");
}

void Histogram::Observe(double value) {
  if (counts.size() != bounds.size() + 1) counts.assign(bounds.size() + 1, 0);
  // Prometheus buckets are "<= le".
  size_t i = static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
  ++counts[i];
  sum += value;
  ++count;
}

std::vector<uint64_t> Histogram::Cumulative() const {
  std::vector<uint64_t> out(bounds.size() + 1, 0);
  uint64_t acc = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    acc += i < counts.size() ? counts[i] : 0;
    out[i] = acc;
  }
  return out;
}

std::vector<double> TtftBuckets() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}

std::vector<double> InterTokenBuckets() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
          0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
}

std::vector<double> RequestLatencyBuckets() {
  return {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
          30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}

std::vector<double> TokenCountBuckets(int64_t max_value) {
  std::vector<double> out;
  for (double scale = 1.0;; scale *= 10.0) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = m * scale;
      if (v > static_cast<double>(max_value)) return out;
      out.push_back(v);
    }
  }
}

std::vector<double> IterationTokenBuckets() {
  return {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

std::vector<double> ParamsNBuckets() { return {1, 2, 5, 10, 20}; }

}  // namespace gemmad::engine
