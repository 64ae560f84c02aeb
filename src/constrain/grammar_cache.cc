// GrammarCache (grammar_cache.h): LRU of compiled grammars; one compile per key at a time.
#include "constrain/grammar_cache.h"

#include <fmt/format.h>

namespace gemmad::constrain {

GrammarCache::GrammarCache(std::shared_ptr<const Vocabulary> vocab, size_t capacity, size_t max_concurrent)
    : vocab_(std::move(vocab)), capacity_(capacity == 0 ? 1 : capacity), max_concurrent_(max_concurrent) {}

Status GrammarCache::AcquireSlot(const CompileBudget& budget) {
  std::unique_lock<std::mutex> lock(mu_);
  while (max_concurrent_ != 0 && active_ >= max_concurrent_) {
    slot_freed_.wait_for(lock, std::chrono::milliseconds(50));
    if (budget.cancelled && budget.cancelled()) return CancelledError("the client went away");
  }
  ++active_;
  return OkStatus();
}

void GrammarCache::ReleaseSlot() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --active_;
  }
  slot_freed_.notify_one();
}

Result<std::shared_ptr<const CompiledGrammar>> GrammarCache::GetOrCompile(const ConstraintSpec& spec,
                                                                        const CompileBudget& budget) {
  while (true) {
    auto r = GetOrCompileOnce(spec, budget);
    if (r.ok() || r.status().code() != StatusCode::kCancelled || (budget.cancelled && budget.cancelled())) return r;
  }
}

Result<std::shared_ptr<const CompiledGrammar>> GrammarCache::GetOrCompileOnce(const ConstraintSpec& spec,
                                                                            const CompileBudget& budget) {
  const std::string key = fmt::format("{:016x}|{}", vocab_->fingerprint(), spec.CacheKey());
  std::promise<Result<std::shared_ptr<const CompiledGrammar>>> promise;
  std::shared_future<Result<std::shared_ptr<const CompiledGrammar>>> existing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) {
      ++hits_;
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      existing = it->second.result;
    } else {
      ++misses_;
      lru_.push_front(key);
      map_[key] = Entry{promise.get_future().share(), lru_.begin(), &promise};
      while (map_.size() > capacity_) {
        map_.erase(lru_.back());
        lru_.pop_back();
      }
    }
  }
  if (existing.valid()) return existing.get();  // waits while another thread compiles it
  Result<std::shared_ptr<const CompiledGrammar>> result = CancelledError("the client went away");
  if (Status slot = AcquireSlot(budget); slot.ok()) {
    result = Compile(spec, vocab_, budget);
    ReleaseSlot();
  }
  promise.set_value(result);
  if (!result.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end() && it->second.owner == &promise) {
      lru_.erase(it->second.lru_pos);
      map_.erase(it);
    }
  }
  return result;
}

size_t GrammarCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return map_.size();
}
size_t GrammarCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}
size_t GrammarCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace gemmad::constrain
