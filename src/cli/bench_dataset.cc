// Random token-id prompts and Poisson arrival offsets for `gemmad bench serve`.
#include "cli/bench_dataset.h"

#include <cmath>

#include "base/rng.h"

namespace gemmad::cli {

std::vector<std::vector<int32_t>> RandomPrompts(int64_t num_prompts, int64_t input_len,
                                                const std::vector<int32_t>& allowed, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<int32_t>> out(static_cast<size_t>(num_prompts));
  for (auto& p : out) {
    p.reserve(static_cast<size_t>(input_len));
    for (int64_t i = 0; i < input_len; ++i) p.push_back(allowed[rng.Below(allowed.size())]);
  }
  return out;
}

std::vector<double> ArrivalOffsets(int64_t num_prompts, double request_rate, uint64_t seed) {
  std::vector<double> out(static_cast<size_t>(num_prompts), 0.0);
  if (!std::isfinite(request_rate)) return out;
  Rng rng(seed ^ 0x5DEECE66DULL);
  double t = 0;
  for (auto& o : out) {
    o = t;
    t += -std::log(1.0 - rng.Uniform()) / request_rate;  // exponential gap; 1 - U is in (0, 1]
  }
  return out;
}

}  // namespace gemmad::cli
