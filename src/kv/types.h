// Identifiers and group descriptions shared by the KV bookkeeping: block ids, sequence ids and
// the geometry of a KV group (which layers share one block table). Ids only: kv knows no tensors.
#pragma once

#include <cstdint>
#include <string>

namespace gemmad::kv {

using BlockId = int32_t;
using SeqId = uint64_t;

// Block 0 of every pool is reserved and never allocated: block tables hold it where a
// sliding-window group dropped a block that fell out of the window (vLLM's null block).
inline constexpr BlockId kNullBlock = 0;

enum class KvGroupKind : uint8_t {
  kFull,     // causal attention over the whole context: keeps every block
  kSliding,  // attends to the last `sliding_window` positions: drops older blocks
};

struct KvGroupSpec {
  std::string name;  // for logs, e.g. "sliding(head_dim=256)"
  KvGroupKind kind = KvGroupKind::kFull;
  int32_t sliding_window = 0;   // W (kSliding only): a query at p sees keys p-W+1 .. p
  int64_t num_blocks = 0;       // including the reserved null block
  int64_t bytes_per_block = 0;  // all layers of the group, K and V: for planning and logs only
};

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The most blocks one sequence holds in `group` at any step, for a sequence that reaches
// `num_tokens` tokens and is computed in chunks of at most `max_chunk_tokens`.
// Full: ceil(T / B). Sliding: the blocks touching the W-1 previous positions plus the chunk,
// ceil((W - 1 + C - 1) / B) + 1, never more than the full count; `extra_keys` more past keys when
// kept (KvCacheConfig::sliding_extra_keys).
int64_t MaxBlocksPerSequence(const KvGroupSpec& group, int32_t block_size, int64_t num_tokens,
                             int64_t max_chunk_tokens, int32_t extra_keys = 0);

}  // namespace gemmad::kv
