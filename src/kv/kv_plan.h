// Splitting a KV memory budget into blocks per group. Policy: every full group gets the same
// number of blocks N; a sliding group gets min(N, max_num_seqs x its per-sequence maximum)
// (a sequence never holds more sliding than full blocks, so more would be idle memory), and N is
// the largest that fits the budget. Short prompts thus get the most concurrency; long contexts
// are bounded by the full groups.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "kv/types.h"

namespace gemmad::kv {

struct KvPlanInput {
  std::vector<KvGroupSpec> groups;  // num_blocks ignored; bytes_per_block > 0 required
  int32_t block_size = 16;
  int64_t budget_bytes = 0;
  int64_t max_model_len = 0;
  int32_t max_num_seqs = 256;
  int32_t max_num_batched_tokens = 2048;
  // --max-model-len -1/auto: when one max_model_len sequence does not fit, plan for the largest
  // length that does (KvPlan::max_model_len) instead of failing.
  bool fit_max_model_len = false;
};

struct KvPlan {
  std::vector<KvGroupSpec> groups;  // with num_blocks filled (null block included)
  int64_t total_bytes = 0;          // sum of num_blocks x bytes_per_block
  int64_t max_sequence_tokens = 0;  // longest single sequence that fits (<= max_model_len)
  int64_t max_model_len = 0;        // the input's, or the largest that fits with fit_max_model_len
};

// kResourceExhausted when not even one max_model_len sequence fits (unless fit_max_model_len);
// the message names the largest max_model_len that would ("... KV cache holds at most 12345
// tokens per sequence").
Result<KvPlan> PlanKvCache(const KvPlanInput& in);

}  // namespace gemmad::kv
