// TokenDrafter: proposes the tokens a sequence will probably continue with, from its tokens
// alone (prompt + output so far). The engine verifies every draft with the target model in one
// step, so a drafter can only change speed, never the output. Implementations: NgramDrafter
// (vLLM's prompt lookup) and ReplayDrafter (a benchmark tool: replays recorded continuations).
// Drafters are called concurrently for different sequences: Propose must be thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace gemmad::spec {

class TokenDrafter {
 public:
  virtual ~TokenDrafter() = default;
  // At most `max_tokens` drafted ids to follow `tokens` (empty: no guess).
  virtual std::vector<int32_t> Propose(std::span<const int32_t> tokens, int32_t max_tokens) const = 0;
};

// vLLM's n-gram proposer: the longest suffix of `tokens` of n in [min_n, max_n] tokens that also
// occurs earlier in `tokens` (the earliest such occurrence when several exist); the drafts are
// the tokens that followed that occurrence (at most `max_tokens`, fewer at the end).
std::vector<int32_t> FindNgramDrafts(std::span<const int32_t> tokens, int32_t min_n, int32_t max_n,
                                     int32_t max_tokens);

class NgramDrafter : public TokenDrafter {
 public:
  NgramDrafter(int32_t min_n, int32_t max_n) : min_n_(min_n), max_n_(max_n) {}
  std::vector<int32_t> Propose(std::span<const int32_t> tokens, int32_t max_tokens) const override {
    return FindNgramDrafts(tokens, min_n_, max_n_, max_tokens);
  }

 private:
  int32_t min_n_, max_n_;
};

// Recorded token sequences (prompt + output) a ReplayDrafter replays: when a sequence's tokens are
// a prefix of a recorded one, the drafts are the recorded tokens that follow. `gemmad bench
// latency --replay-drafts` records each greedy run and replays it, so that every draft is accepted
// and the speed-up measures the cost of verification alone.
class ReplayBook {
 public:
  void Record(std::vector<int32_t> tokens);
  // The recorded tokens after `tokens` (at most max_tokens), or none.
  std::vector<int32_t> Continue(std::span<const int32_t> tokens, int32_t max_tokens) const;

 private:
  mutable std::mutex mu_;
  // First token -> every recorded sequence starting with it (the latest first).
  std::unordered_map<int32_t, std::vector<std::vector<int32_t>>> by_first_;
};

class ReplayDrafter : public TokenDrafter {
 public:
  explicit ReplayDrafter(std::shared_ptr<const ReplayBook> book) : book_(std::move(book)) {}
  std::vector<int32_t> Propose(std::span<const int32_t> tokens, int32_t max_tokens) const override {
    return book_->Continue(tokens, max_tokens);
  }

 private:
  std::shared_ptr<const ReplayBook> book_;
};

}  // namespace gemmad::spec
