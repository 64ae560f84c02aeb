// Block arithmetic of KV groups.
#include "model/kv_cache_spec.h"

#include <algorithm>

namespace gemmad::model {

int64_t KvGroupSpec::bytes_per_token_per_layer() const {
  return 2 * num_kv_heads * head_dim * static_cast<int64_t>(tensor::DTypeSize(dtype));
}

int64_t KvGroupSpec::bytes_per_block() const {
  return static_cast<int64_t>(layers.size()) * block_size * bytes_per_token_per_layer();
}

int64_t KvGroupSpec::NumBlocksNeeded(int64_t num_tokens, int64_t max_chunk_tokens) const {
  const int64_t all = EndBlock(num_tokens);
  if (kind == KvGroupKind::kFull || window <= 0) return all;
  const int64_t span = window + std::max<int64_t>(max_chunk_tokens, 1) - 2;  // keys before the last one
  return std::min(all, (span + block_size - 1) / block_size + 1);
}

int64_t KvGroupSpec::FirstLiveBlock(int64_t num_computed_tokens) const {
  if (kind == KvGroupKind::kFull || window <= 0) return 0;
  return std::max<int64_t>(0, num_computed_tokens - window + 1) / block_size;
}

int64_t KvCacheSpec::BytesForTokens(int64_t num_tokens) const {
  int64_t total = 0;
  for (const auto& g : groups) {
    const int64_t kept = g.kind == KvGroupKind::kSliding && g.window > 0 ? std::min(num_tokens, g.window) : num_tokens;
    total += kept * static_cast<int64_t>(g.layers.size()) * g.bytes_per_token_per_layer();
  }
  return total;
}

}  // namespace gemmad::model
