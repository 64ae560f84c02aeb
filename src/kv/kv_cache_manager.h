// KvCacheManager: the block tables of every sequence in every KV group, on top of one BlockPool
// per group, plus prefix-cache lookup across groups (full groups need every block of the hit,
// sliding groups only the blocks inside the window before it). Ids only, no tensors.
// Invariant (CheckInvariants): every usable block is free or referenced, never both, and its
// reference count equals the number of block-table entries naming it.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "kv/block_hash.h"
#include "kv/block_pool.h"
#include "kv/types.h"

namespace gemmad::kv {

struct KvCacheConfig {
  int32_t block_size = 16;
  std::vector<KvGroupSpec> groups;
  bool enable_prefix_caching = true;
  // Keys kept beyond each sliding window: an MTP assistant reads the W + 1 keys before the
  // position it drafts at, one more than the target's own window needs (0 otherwise).
  int32_t sliding_extra_keys = 0;
};

// A prefix-cache hit: the first num_tokens tokens are already in the cache. tables[g] has
// num_tokens / block_size entries (kNullBlock where a sliding group needs no block).
struct CacheHit {
  int64_t num_tokens = 0;
  std::vector<std::vector<BlockId>> tables;
};

class KvCacheManager {
 public:
  explicit KvCacheManager(KvCacheConfig config);

  const KvCacheConfig& config() const { return config_; }
  int32_t block_size() const { return config_.block_size; }
  int num_groups() const { return static_cast<int>(pools_.size()); }
  const BlockPool& pool(int g) const { return pools_[static_cast<size_t>(g)]; }

  // The longest cached prefix of at most `max_tokens` tokens whose full-block hashes are
  // `block_hashes`, that every group can serve. Takes no references. Empty hit when caching
  // is off.
  CacheHit FindCachedPrefix(std::span<const BlockHash> block_hashes, int64_t max_tokens) const;

  // Makes room for positions [num_computed, num_computed + num_new) of `seq`: drops sliding
  // blocks that fell out of the window, then allocates the missing blocks in every group.
  // `hit` (optional) is the sequence's prefix hit; only valid when it holds no blocks yet.
  // All or nothing: returns false (and changes nothing but the window drops) when a group
  // lacks free blocks.
  bool Allocate(SeqId seq, const CacheHit* hit, int64_t num_computed, int64_t num_new);

  // Registers in the prefix cache every full block of `seq` whose tokens are all computed.
  void CacheComputedBlocks(SeqId seq, std::span<const BlockHash> block_hashes, int64_t num_computed);

  // Releases every block of `seq` (tail blocks first, so they are evicted first).
  void Free(SeqId seq);
  // Releases the blocks of `seq` past position num_tokens - 1 (those of rejected speculative
  // drafts), in every group; none of them is in the prefix cache (not fully computed).
  void Trim(SeqId seq, int64_t num_tokens);

  bool has_seq(SeqId seq) const { return seqs_.count(seq) != 0; }
  const std::vector<BlockId>& BlockTable(SeqId seq, int group) const;
  // Non-null blocks `seq` holds in `group`.
  int64_t NumHeldBlocks(SeqId seq, int group) const;

  // Fraction of usable blocks in use (referenced), over all groups: vllm:kv_cache_usage_perc.
  double Usage() const;
  int64_t num_usable_blocks() const;

  // The longest sequence whose blocks fit in every group, chunked by `max_chunk_tokens`.
  int64_t MaxSequenceTokens(int64_t max_chunk_tokens, int64_t limit) const;

  void CheckInvariants() const;

 private:
  struct SeqBlocks {
    std::vector<std::vector<BlockId>> tables;  // per group
    std::vector<int64_t> num_hashed;           // per group: leading blocks already registered
  };
  void DropOutOfWindow(SeqBlocks& s, int64_t num_computed);
  int64_t SlidingHit(int g, std::span<const BlockHash> hashes, int64_t max_blocks) const;

  KvCacheConfig config_;
  std::vector<BlockPool> pools_;
  std::unordered_map<SeqId, SeqBlocks> seqs_;
};

}  // namespace gemmad::kv
