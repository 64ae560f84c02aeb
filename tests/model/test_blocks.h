// TestBlocks: a minimal stand-in for the engine's block pools in model tests. It hands out
// physical blocks per KV group from a free list, keeps one block table per sequence and group,
// and frees sliding-window blocks as soon as no later step can read them (writing -1 into the
// table, so a kernel that read them would fail the batch validation or its own checks).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/forward_batch.h"
#include "model/kv_cache_spec.h"

namespace gemmad::model::testing {

class TestBlocks {
 public:
  TestBlocks(const KvCacheSpec& spec, std::vector<int64_t> num_blocks) : spec_(spec), num_blocks_(num_blocks) {
    free_.resize(spec.groups.size());
    for (size_t g = 0; g < spec.groups.size(); ++g) {
      for (int64_t b = num_blocks[g] - 1; b >= 0; --b) free_[g].push_back(static_cast<int32_t>(b));
    }
  }

  // Makes room for tokens [num_computed, num_computed + num_new) of `seq`: frees sliding blocks
  // below the window of the step's first query, then allocates the missing blocks. Returns false
  // when a pool runs dry.
  bool Prepare(int seq, int64_t num_computed, int64_t num_new) {
    auto& tables = tables_[seq];
    tables.resize(spec_.groups.size());
    for (size_t g = 0; g < spec_.groups.size(); ++g) {
      auto& t = tables[g];
      const auto& grp = spec_.groups[g];
      for (int64_t b = 0; b < grp.FirstLiveBlock(num_computed) && b < static_cast<int64_t>(t.size()); ++b) {
        if (t[b] >= 0) free_[g].push_back(t[b]);
        t[b] = -1;
      }
      const int64_t end = grp.EndBlock(num_computed + num_new);
      while (static_cast<int64_t>(t.size()) < end) {
        if (free_[g].empty()) return false;
        t.push_back(free_[g].back());
        free_[g].pop_back();
      }
    }
    return true;
  }

  // Returns every block of `seq` to the pools.
  void Release(int seq) {
    for (size_t g = 0; g < tables_[seq].size(); ++g) {
      for (int32_t b : tables_[seq][g]) {
        if (b >= 0) free_[g].push_back(b);
      }
    }
    tables_.erase(seq);
  }

  const std::vector<std::vector<int32_t>>& tables(int seq) { return tables_[seq]; }
  int64_t num_free(int group) const { return static_cast<int64_t>(free_[group].size()); }
  const std::vector<int64_t>& num_blocks() const { return num_blocks_; }

 private:
  KvCacheSpec spec_;
  std::vector<int64_t> num_blocks_;
  std::vector<std::vector<int32_t>> free_;
  std::map<int, std::vector<std::vector<int32_t>>> tables_;
};

}  // namespace gemmad::model::testing
