// BlockPool: the blocks of one KV group. Reference counts, an LRU queue of free blocks (free
// blocks that hold a registered prefix hash stay findable until they are reused: evictable
// cache), and the hash -> block map of the prefix cache.
// Invariants: block 0 is the null block (never free, never referenced); a usable block is in
// the free queue <=> its reference count is 0; map[h] == b => hash_of(b) == h.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "kv/block_hash.h"
#include "kv/types.h"

namespace gemmad::kv {

class BlockPool {
 public:
  explicit BlockPool(int64_t num_blocks);  // num_blocks includes the null block; >= 2

  int64_t num_usable() const { return num_blocks_ - 1; }
  int64_t num_free() const { return num_free_; }  // includes evictable cached blocks

  // Pops the least recently freed block, evicting its hash if it had one. Needs num_free() > 0.
  BlockId AllocateOne();
  // Takes a reference; a free (evictable cached) block leaves the free queue.
  void AddRef(BlockId b);
  // Drops a reference; at zero the block joins the free queue's tail (its hash stays findable).
  void Release(BlockId b);

  std::optional<BlockId> Lookup(const BlockHash& h) const;
  // Registers a computed full block. A hash already mapped to another block keeps that block.
  void SetHash(BlockId b, const BlockHash& h);
  bool has_hash(BlockId b) const { return has_hash_[static_cast<size_t>(b)]; }

  int32_t ref_count(BlockId b) const { return ref_[static_cast<size_t>(b)]; }
  bool is_free(BlockId b) const { return in_free_[static_cast<size_t>(b)]; }
  int64_t num_cached() const { return static_cast<int64_t>(map_.size()); }

  // Aborts (GEMMAD_CHECK) when an invariant above is broken. O(num_blocks).
  void CheckInvariants() const;

 private:
  void PushFreeTail(BlockId b);
  void Unlink(BlockId b);

  int64_t num_blocks_;
  int64_t num_free_ = 0;
  std::vector<int32_t> ref_;
  std::vector<BlockId> prev_, next_;  // free queue links; -1 = none
  std::vector<bool> in_free_;
  BlockId head_ = -1, tail_ = -1;
  std::vector<BlockHash> hash_;
  std::vector<bool> has_hash_;
  std::unordered_map<BlockHash, BlockId, BlockHashHasher> map_;
};

}  // namespace gemmad::kv
