// PlanKvCache: a binary search over the full groups' block count under the byte budget.
#include "kv/kv_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "kv/kv_cache_manager.h"

namespace gemmad::kv {
namespace {

// Blocks per group (null block excluded) for `n` blocks in each full group.
std::vector<int64_t> Split(const KvPlanInput& in, int64_t n) {
  std::vector<int64_t> out;
  for (const auto& g : in.groups) {
    if (g.kind == KvGroupKind::kFull) {
      out.push_back(n);
    } else {
      int64_t per_seq = MaxBlocksPerSequence(g, in.block_size, in.max_model_len, in.max_num_batched_tokens);
      out.push_back(std::min<int64_t>(n, per_seq * in.max_num_seqs));
    }
  }
  return out;
}

int64_t Bytes(const KvPlanInput& in, const std::vector<int64_t>& blocks) {
  int64_t total = 0;
  for (size_t g = 0; g < blocks.size(); ++g) total += (blocks[g] + 1) * in.groups[g].bytes_per_block;
  return total;
}

// A shorter max_model_len only shrinks the sliding groups, so every length up to `fits` (which
// fits with the sliding groups sized for in.max_model_len) fits too; a binary search finds the
// largest length whose own plan holds one sequence of it.
Result<KvPlan> PlanLongestFit(const KvPlanInput& in, int64_t fits) {
  KvPlanInput t = in;
  t.fit_max_model_len = false;
  int64_t lo = fits, hi = in.max_model_len - 1;
  while (lo < hi) {
    t.max_model_len = lo + (hi - lo + 1) / 2;
    if (PlanKvCache(t).ok()) {
      lo = t.max_model_len;
    } else {
      hi = t.max_model_len - 1;
    }
  }
  t.max_model_len = lo;
  return PlanKvCache(t);
}

}  // namespace

Result<KvPlan> PlanKvCache(const KvPlanInput& in) {
  if (in.groups.empty()) return InvalidArgumentError("KV plan: no KV groups");
  if (in.block_size <= 0) return InvalidArgumentError("KV plan: block_size must be positive");
  for (const auto& g : in.groups) {
    if (g.bytes_per_block <= 0) {
      return InvalidArgumentError(fmt::format("KV plan: group {} has no bytes_per_block", g.name));
    }
  }
  // Largest n (blocks per full group) within the budget. Bytes(n) is monotone in n.
  int64_t lo = 0, hi = 1;
  while (Bytes(in, Split(in, hi)) <= in.budget_bytes && hi < (int64_t{1} << 40)) hi *= 2;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (Bytes(in, Split(in, mid)) <= in.budget_bytes) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::vector<int64_t> blocks = Split(in, lo);
  KvPlan plan;
  plan.groups = in.groups;
  for (size_t g = 0; g < blocks.size(); ++g) plan.groups[g].num_blocks = std::max<int64_t>(blocks[g], 1) + 1;
  plan.total_bytes = Bytes(in, blocks);
  KvCacheConfig cfg{in.block_size, plan.groups, false};
  KvCacheManager probe(cfg);
  plan.max_sequence_tokens = probe.MaxSequenceTokens(in.max_num_batched_tokens, in.max_model_len);
  const double gib = static_cast<double>(in.budget_bytes) / (1024.0 * 1024.0 * 1024.0);
  if (lo < 1) {
    return ResourceExhaustedError(fmt::format(
        "The KV cache budget of {:.4f} GiB cannot hold even one block per KV group; raise the KV "
        "cache space (VLLM_CPU_KVCACHE_SPACE).", gib));
  }
  plan.max_model_len = in.max_model_len;
  if (plan.max_sequence_tokens < in.max_model_len) {
    const int64_t fit = probe.MaxSequenceTokens(in.max_num_batched_tokens, int64_t{1} << 40);
    if (in.fit_max_model_len && fit >= 1) return PlanLongestFit(in, fit);
    return ResourceExhaustedError(fmt::format(
        "The KV cache budget of {:.2f} GiB holds at most {} tokens per sequence, less than "
        "max_model_len ({}). Lower --max-model-len to {} or less, or raise the KV cache space "
        "(VLLM_CPU_KVCACHE_SPACE).", gib, fit, in.max_model_len, fit));
  }
  return plan;
}

}  // namespace gemmad::kv
