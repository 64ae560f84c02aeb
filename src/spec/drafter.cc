// N-gram prompt lookup and the replay book.
#include "spec/drafter.h"

#include <algorithm>

namespace gemmad::spec {
std::vector<int32_t> FindNgramDrafts(std::span<const int32_t> tokens, int32_t min_n, int32_t max_n,
                                     int32_t max_tokens) {
  const int64_t size = static_cast<int64_t>(tokens.size());
  if (max_tokens <= 0 || min_n < 1 || max_n < min_n || size < min_n + 1) return {};
  // For every earlier end position e (the occurrence is tokens[e - n + 1 .. e]), the length of
  // the common suffix of tokens[.. e] and tokens[.. size - 1], capped at max_n. The longest wins;
  // among equal lengths the earliest occurrence (smallest e), as vLLM's KMP scan picks it.
  int64_t best_len = 0, best_end = -1;
  const int32_t last = tokens[static_cast<size_t>(size - 1)];
  for (int64_t e = 0; e + 1 < size; ++e) {
    if (tokens[static_cast<size_t>(e)] != last) continue;
    int64_t len = 1;
    while (len < max_n && e - len >= 0 &&
           tokens[static_cast<size_t>(e - len)] == tokens[static_cast<size_t>(size - 1 - len)]) {
      ++len;
    }
    if (len > best_len) {
      best_len = len;
      best_end = e;
      if (best_len == max_n) break;  // nothing longer exists; this is the earliest of that length
    }
  }
  if (best_len < min_n) return {};
  const int64_t start = best_end + 1;
  const int64_t n = std::min<int64_t>(max_tokens, size - start);
  return std::vector<int32_t>(tokens.begin() + start, tokens.begin() + start + n);
}

void ReplayBook::Record(std::vector<int32_t> tokens) {
  if (tokens.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto& list = by_first_[tokens.front()];
  list.insert(list.begin(), std::move(tokens));
}

std::vector<int32_t> ReplayBook::Continue(std::span<const int32_t> tokens, int32_t max_tokens) const {
  if (tokens.empty() || max_tokens <= 0) return {};
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_first_.find(tokens.front());
  if (it == by_first_.end()) return {};
  for (const std::vector<int32_t>& rec : it->second) {
    if (rec.size() <= tokens.size() || !std::equal(tokens.begin(), tokens.end(), rec.begin())) continue;
    const size_t n = std::min(static_cast<size_t>(max_tokens), rec.size() - tokens.size());
    return std::vector<int32_t>(rec.begin() + static_cast<int64_t>(tokens.size()),
                                rec.begin() + static_cast<int64_t>(tokens.size() + n));
  }
  return {};
}

}  // namespace gemmad::spec
