// GrammarCache: compiled grammars keyed by ConstraintSpec::CacheKey() (plus the vocabulary),
// bounded LRU, thread-safe; concurrent requests for the same key compile once. Errors are not
// cached; a caller that waited on another's compilation which was cancelled (its client went
// away) compiles the spec itself. At most `max_concurrent` compilations run at once (0: no bound);
// the others wait for a slot (cache hits never wait), so a burst of expensive constraints cannot
// take every core from the engine.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/result.h"
#include "constrain/compiled_grammar.h"

namespace gemmad::constrain {

class GrammarCache {
 public:
  GrammarCache(std::shared_ptr<const Vocabulary> vocab, size_t capacity, size_t max_concurrent = 0);

  Result<std::shared_ptr<const CompiledGrammar>> GetOrCompile(const ConstraintSpec& spec,
                                                              const CompileBudget& budget = {});

  size_t size() const;
  size_t hits() const;
  size_t misses() const;

 private:
  Result<std::shared_ptr<const CompiledGrammar>> GetOrCompileOnce(const ConstraintSpec& spec,
                                                                  const CompileBudget& budget);
  struct Entry {
    std::shared_future<Result<std::shared_ptr<const CompiledGrammar>>> result;
    std::list<std::string>::iterator lru_pos;
    const void* owner = nullptr;  // the compiling call (errors are removed only by their owner)
  };
  // Waits for a compilation slot; Cancelled once budget.cancelled() turns true while waiting.
  Status AcquireSlot(const CompileBudget& budget);
  void ReleaseSlot();

  std::shared_ptr<const Vocabulary> vocab_;
  size_t capacity_;
  size_t max_concurrent_;
  size_t active_ = 0;  // compilations running (guarded by mu_)
  std::condition_variable slot_freed_;
  mutable std::mutex mu_;
  std::list<std::string> lru_;  // most recent first
  std::unordered_map<std::string, Entry> map_;
  size_t hits_ = 0;
  size_t misses_ = 0;
};

}  // namespace gemmad::constrain
