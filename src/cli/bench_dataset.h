// The random dataset and arrival schedule of `gemmad bench serve` (vLLM's `--dataset-name
// random`, range ratio 0, no shared prefix): each prompt is `input_len` token ids drawn
// uniformly from the allowed ids, sent as a token-id prompt, so its length is exact. Arrivals:
// all at once for an infinite rate, else a Poisson process (exponential gaps, mean 1/rate).
// Everything is a function of the seed.
#pragma once

#include <cstdint>
#include <vector>

namespace gemmad::cli {

// `allowed` must be non-empty.
std::vector<std::vector<int32_t>> RandomPrompts(int64_t num_prompts, int64_t input_len,
                                                const std::vector<int32_t>& allowed, uint64_t seed);

// Start offsets in seconds from the benchmark start, non-decreasing; all 0 when rate is inf.
std::vector<double> ArrivalOffsets(int64_t num_prompts, double request_rate, uint64_t seed);

}  // namespace gemmad::cli
