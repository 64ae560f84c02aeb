// BlockPool: an intrusive doubly linked LRU free queue over block ids plus the prefix map.
#include "kv/block_pool.h"

#include "base/check.h"

namespace gemmad::kv {

BlockPool::BlockPool(int64_t num_blocks)
    : num_blocks_(num_blocks),
      ref_(static_cast<size_t>(num_blocks), 0),
      prev_(static_cast<size_t>(num_blocks), -1),
      next_(static_cast<size_t>(num_blocks), -1),
      in_free_(static_cast<size_t>(num_blocks), false),
      hash_(static_cast<size_t>(num_blocks)),
      has_hash_(static_cast<size_t>(num_blocks), false) {
  GEMMAD_CHECK(num_blocks >= 2, "a block pool needs the null block and one more, got {}", num_blocks);
  for (BlockId b = 1; b < num_blocks; ++b) PushFreeTail(b);
}

void BlockPool::PushFreeTail(BlockId b) {
  size_t i = static_cast<size_t>(b);
  prev_[i] = tail_;
  next_[i] = -1;
  if (tail_ >= 0) {
    next_[static_cast<size_t>(tail_)] = b;
  } else {
    head_ = b;
  }
  tail_ = b;
  in_free_[i] = true;
  ++num_free_;
}

void BlockPool::Unlink(BlockId b) {
  size_t i = static_cast<size_t>(b);
  GEMMAD_DCHECK(in_free_[i], "unlinking block {} that is not free", b);
  if (prev_[i] >= 0) {
    next_[static_cast<size_t>(prev_[i])] = next_[i];
  } else {
    head_ = next_[i];
  }
  if (next_[i] >= 0) {
    prev_[static_cast<size_t>(next_[i])] = prev_[i];
  } else {
    tail_ = prev_[i];
  }
  prev_[i] = next_[i] = -1;
  in_free_[i] = false;
  --num_free_;
}

BlockId BlockPool::AllocateOne() {
  GEMMAD_CHECK(head_ >= 0, "AllocateOne on an empty pool");
  BlockId b = head_;
  Unlink(b);
  size_t i = static_cast<size_t>(b);
  if (has_hash_[i]) {
    auto it = map_.find(hash_[i]);
    if (it != map_.end() && it->second == b) map_.erase(it);
    has_hash_[i] = false;
  }
  ref_[i] = 1;
  return b;
}

void BlockPool::AddRef(BlockId b) {
  GEMMAD_CHECK(b > 0 && b < num_blocks_, "AddRef on block {}", b);
  size_t i = static_cast<size_t>(b);
  if (ref_[i] == 0) Unlink(b);
  ++ref_[i];
}

void BlockPool::Release(BlockId b) {
  GEMMAD_CHECK(b > 0 && b < num_blocks_, "Release on block {}", b);
  size_t i = static_cast<size_t>(b);
  GEMMAD_CHECK(ref_[i] > 0, "Release of block {} with no reference", b);
  if (--ref_[i] == 0) PushFreeTail(b);
}

std::optional<BlockId> BlockPool::Lookup(const BlockHash& h) const {
  auto it = map_.find(h);
  if (it == map_.end()) return std::nullopt;
  return it->second;
}

void BlockPool::SetHash(BlockId b, const BlockHash& h) {
  size_t i = static_cast<size_t>(b);
  GEMMAD_CHECK(b > 0 && ref_[i] > 0, "SetHash on unreferenced block {}", b);
  if (has_hash_[i]) return;  // already registered (a prefix hit)
  if (map_.count(h)) return;  // an equal block is cached already; this one stays private
  hash_[i] = h;
  has_hash_[i] = true;
  map_.emplace(h, b);
}

void BlockPool::CheckInvariants() const {
  GEMMAD_CHECK(!in_free_[0] && ref_[0] == 0 && !has_hash_[0], "null block in use");
  int64_t walked = 0;
  for (BlockId b = head_, prev = -1; b >= 0; prev = b, b = next_[static_cast<size_t>(b)]) {
    GEMMAD_CHECK(in_free_[static_cast<size_t>(b)], "block {} linked but not marked free", b);
    GEMMAD_CHECK(prev_[static_cast<size_t>(b)] == prev, "broken free-queue link at {}", b);
    GEMMAD_CHECK(++walked <= num_blocks_, "free queue has a cycle");
  }
  GEMMAD_CHECK(walked == num_free_, "free queue length {} != num_free {}", walked, num_free_);
  for (BlockId b = 1; b < num_blocks_; ++b) {
    size_t i = static_cast<size_t>(b);
    GEMMAD_CHECK(ref_[i] >= 0, "negative refcount on block {}", b);
    GEMMAD_CHECK(in_free_[i] == (ref_[i] == 0), "block {}: free={} but refcount {}", b,
                 static_cast<bool>(in_free_[i]), ref_[i]);
    if (has_hash_[i]) {
      auto it = map_.find(hash_[i]);
      GEMMAD_CHECK(it != map_.end() && it->second == b, "block {} hash not in the map", b);
    }
  }
  for (const auto& [h, b] : map_) {
    GEMMAD_CHECK(has_hash_[static_cast<size_t>(b)] && hash_[static_cast<size_t>(b)] == h,
                 "map entry for block {} does not match its hash", b);
  }
}

}  // namespace gemmad::kv
