// KvCacheManager: per-sequence block tables over per-group pools; prefix lookup across groups.
#include "kv/kv_cache_manager.h"

#include <algorithm>
#include <unordered_map>

#include "base/check.h"

namespace gemmad::kv {

int64_t MaxBlocksPerSequence(const KvGroupSpec& group, int32_t block_size, int64_t num_tokens,
                             int64_t max_chunk_tokens, int32_t extra_keys) {
  const int64_t full = CeilDiv(num_tokens, block_size);
  if (group.kind == KvGroupKind::kFull) return full;
  const int64_t span = group.sliding_window + extra_keys - 1 + std::min(max_chunk_tokens, num_tokens);
  const int64_t sliding = span <= 0 ? 0 : CeilDiv(span - 1, block_size) + 1;
  return std::min(full, sliding);
}

KvCacheManager::KvCacheManager(KvCacheConfig config) : config_(std::move(config)) {
  GEMMAD_CHECK(config_.block_size > 0, "block_size must be positive");
  for (const auto& g : config_.groups) {
    GEMMAD_CHECK(g.kind == KvGroupKind::kFull || g.sliding_window >= 1,
                 "sliding group {} needs a window >= 1", g.name);
    pools_.emplace_back(g.num_blocks);
  }
}

int64_t KvCacheManager::SlidingHit(int g, std::span<const BlockHash> hashes, int64_t max_blocks) const {
  const auto& spec = config_.groups[static_cast<size_t>(g)];
  const int64_t needed = CeilDiv(spec.sliding_window + config_.sliding_extra_keys - 1, config_.block_size);
  if (needed == 0) return max_blocks;
  const BlockPool& pool = pools_[static_cast<size_t>(g)];
  int64_t run = 0;
  for (int64_t i = max_blocks - 1; i >= 0; --i) {
    if (pool.Lookup(hashes[static_cast<size_t>(i)])) {
      if (++run >= needed) return i + needed;
    } else {
      run = 0;
    }
  }
  return run;  // blocks [0, run) are cached and nothing precedes them
}

CacheHit KvCacheManager::FindCachedPrefix(std::span<const BlockHash> block_hashes,
                                          int64_t max_tokens) const {
  CacheHit hit;
  hit.tables.resize(pools_.size());
  if (!config_.enable_prefix_caching || pools_.empty()) return hit;
  int64_t n = std::min<int64_t>(max_tokens / config_.block_size, static_cast<int64_t>(block_hashes.size()));
  for (size_t g = 0; g < pools_.size(); ++g) {
    if (config_.groups[g].kind != KvGroupKind::kFull) continue;
    int64_t k = 0;
    while (k < n && pools_[g].Lookup(block_hashes[static_cast<size_t>(k)])) ++k;
    n = k;
  }
  for (bool changed = true; changed && n > 0;) {
    changed = false;
    for (size_t g = 0; g < pools_.size(); ++g) {
      if (config_.groups[g].kind != KvGroupKind::kSliding) continue;
      int64_t k = SlidingHit(static_cast<int>(g), block_hashes, n);
      if (k < n) {
        n = k;
        changed = true;
      }
    }
  }
  hit.num_tokens = n * config_.block_size;
  for (size_t g = 0; g < pools_.size(); ++g) {
    const auto& spec = config_.groups[g];
    int64_t first = 0;
    if (spec.kind == KvGroupKind::kSliding) {
      first = std::max<int64_t>(0, n - CeilDiv(spec.sliding_window + config_.sliding_extra_keys - 1, config_.block_size));
    }
    auto& table = hit.tables[g];
    table.assign(static_cast<size_t>(n), kNullBlock);
    for (int64_t i = first; i < n; ++i) {
      auto b = pools_[g].Lookup(block_hashes[static_cast<size_t>(i)]);
      GEMMAD_CHECK(b.has_value(), "prefix hit block {} vanished", i);
      table[static_cast<size_t>(i)] = *b;
    }
  }
  return hit;
}

void KvCacheManager::DropOutOfWindow(SeqBlocks& s, int64_t num_computed) {
  for (size_t g = 0; g < pools_.size(); ++g) {
    const auto& spec = config_.groups[g];
    if (spec.kind != KvGroupKind::kSliding) continue;
    const int64_t first_needed_pos = num_computed - (spec.sliding_window + config_.sliding_extra_keys - 1);
    if (first_needed_pos <= 0) continue;
    auto& table = s.tables[g];
    const int64_t first_needed_block =
        std::min<int64_t>(first_needed_pos / config_.block_size, static_cast<int64_t>(table.size()));
    for (int64_t i = 0; i < first_needed_block; ++i) {
      BlockId& b = table[static_cast<size_t>(i)];
      if (b != kNullBlock) {
        pools_[g].Release(b);
        b = kNullBlock;
      }
    }
  }
}

bool KvCacheManager::Allocate(SeqId seq, const CacheHit* hit, int64_t num_computed, int64_t num_new) {
  auto [it, inserted] = seqs_.try_emplace(seq);
  SeqBlocks& s = it->second;
  if (inserted) {
    s.tables.resize(pools_.size());
    s.num_hashed.assign(pools_.size(), 0);
  }
  const bool use_hit = hit != nullptr && hit->num_tokens > 0;
  if (use_hit) {
    for (const auto& t : s.tables) GEMMAD_CHECK(t.empty(), "prefix hit for a sequence with blocks");
    GEMMAD_CHECK(num_computed == hit->num_tokens, "hit of {} tokens but num_computed {}",
                 hit->num_tokens, num_computed);
  } else {
    DropOutOfWindow(s, num_computed);
  }
  const int64_t end_blocks = CeilDiv(num_computed + num_new, config_.block_size);
  std::vector<int64_t> num_new_blocks(pools_.size(), 0);
  for (size_t g = 0; g < pools_.size(); ++g) {
    const auto& base = use_hit ? hit->tables[g] : s.tables[g];
    int64_t need = std::max<int64_t>(0, end_blocks - static_cast<int64_t>(base.size()));
    num_new_blocks[g] = need;
    if (use_hit) {
      for (BlockId b : base) {
        if (b != kNullBlock && pools_[g].ref_count(b) == 0) ++need;
      }
    }
    if (need > pools_[g].num_free()) {
      if (inserted) seqs_.erase(it);
      return false;
    }
  }
  for (size_t g = 0; g < pools_.size(); ++g) {
    auto& table = s.tables[g];
    if (use_hit) {
      table = hit->tables[g];
      for (BlockId b : table) {
        if (b != kNullBlock) pools_[g].AddRef(b);
      }
      s.num_hashed[g] = static_cast<int64_t>(table.size());
    }
    for (int64_t k = 0; k < num_new_blocks[g]; ++k) table.push_back(pools_[g].AllocateOne());
  }
  return true;
}

void KvCacheManager::CacheComputedBlocks(SeqId seq, std::span<const BlockHash> block_hashes,
                                         int64_t num_computed) {
  if (!config_.enable_prefix_caching) return;
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  SeqBlocks& s = it->second;
  const int64_t full = std::min<int64_t>(num_computed / config_.block_size,
                                         static_cast<int64_t>(block_hashes.size()));
  for (size_t g = 0; g < pools_.size(); ++g) {
    const auto& table = s.tables[g];
    GEMMAD_CHECK(static_cast<int64_t>(table.size()) >= full, "computed blocks without a table entry");
    for (int64_t i = s.num_hashed[g]; i < full; ++i) {
      BlockId b = table[static_cast<size_t>(i)];
      if (b != kNullBlock) pools_[g].SetHash(b, block_hashes[static_cast<size_t>(i)]);
    }
    s.num_hashed[g] = std::max(s.num_hashed[g], full);
  }
}

void KvCacheManager::Free(SeqId seq) {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  for (size_t g = 0; g < pools_.size(); ++g) {
    const auto& table = it->second.tables[g];
    for (auto b = table.rbegin(); b != table.rend(); ++b) {
      if (*b != kNullBlock) pools_[g].Release(*b);
    }
  }
  seqs_.erase(it);
}

void KvCacheManager::Trim(SeqId seq, int64_t num_tokens) {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  const auto keep = static_cast<size_t>(CeilDiv(num_tokens, config_.block_size));
  for (size_t g = 0; g < pools_.size(); ++g) {
    auto& table = it->second.tables[g];
    while (table.size() > keep) {
      if (table.back() != kNullBlock) pools_[g].Release(table.back());
      table.pop_back();
    }
    it->second.num_hashed[g] = std::min<int64_t>(it->second.num_hashed[g], static_cast<int64_t>(keep));
  }
}

const std::vector<BlockId>& KvCacheManager::BlockTable(SeqId seq, int group) const {
  auto it = seqs_.find(seq);
  GEMMAD_CHECK(it != seqs_.end(), "no blocks for sequence {}", seq);
  return it->second.tables[static_cast<size_t>(group)];
}

int64_t KvCacheManager::NumHeldBlocks(SeqId seq, int group) const {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return 0;
  const auto& t = it->second.tables[static_cast<size_t>(group)];
  return static_cast<int64_t>(std::count_if(t.begin(), t.end(), [](BlockId b) { return b != kNullBlock; }));
}

int64_t KvCacheManager::num_usable_blocks() const {
  int64_t n = 0;
  for (const auto& p : pools_) n += p.num_usable();
  return n;
}

double KvCacheManager::Usage() const {
  int64_t usable = 0, used = 0;
  for (const auto& p : pools_) {
    usable += p.num_usable();
    used += p.num_usable() - p.num_free();
  }
  return usable == 0 ? 0.0 : static_cast<double>(used) / static_cast<double>(usable);
}

int64_t KvCacheManager::MaxSequenceTokens(int64_t max_chunk_tokens, int64_t limit) const {
  auto fits = [&](int64_t t) {
    for (size_t g = 0; g < pools_.size(); ++g) {
      if (MaxBlocksPerSequence(config_.groups[g], config_.block_size, t, max_chunk_tokens, config_.sliding_extra_keys) >
          pools_[g].num_usable()) {
        return false;
      }
    }
    return true;
  };
  int64_t lo = 0, hi = limit;  // fits(lo) holds
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

void KvCacheManager::CheckInvariants() const {
  for (size_t g = 0; g < pools_.size(); ++g) {
    pools_[g].CheckInvariants();
    std::unordered_map<BlockId, int32_t> refs;
    for (const auto& [seq, s] : seqs_) {
      for (BlockId b : s.tables[g]) {
        if (b != kNullBlock) ++refs[b];
      }
    }
    for (BlockId b = 1; b <= pools_[g].num_usable(); ++b) {
      auto it = refs.find(b);
      int32_t expected = it == refs.end() ? 0 : it->second;
      GEMMAD_CHECK(pools_[g].ref_count(b) == expected, "group {} block {}: refcount {} but {} table entries",
                   g, b, pools_[g].ref_count(b), expected);
    }
  }
}

}  // namespace gemmad::kv
