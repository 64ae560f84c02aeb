// Prometheus text exposition (format 0.0.4) of the engine's metrics under vLLM's names
// (`vllm:*`, labels model_name and engine="0", counters with `_total` and `_created`), written
// the way Python's prometheus_client writes them (floats as Go strings: "1.0", "+Inf", "1e+06").
#pragma once

#include <string>

#include "engine/metrics.h"

namespace gemmad::server {

struct MetricsLabels {
  std::string model_name;
  double created_unix = 0;  // `_created` samples of counters
};

std::string FormatPrometheus(const engine::EngineMetrics& m, const MetricsLabels& labels);
// prometheus_client's floatToGoString.
std::string GoFloat(double v);

}  // namespace gemmad::server
