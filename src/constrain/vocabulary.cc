// Vocabulary construction: validation, ordinary-token trie and mask, fingerprint.
#include "constrain/vocabulary.h"

#include <fmt/format.h>

#include <algorithm>

#include "constrain/internal/token_trie.h"

namespace gemmad::constrain {

Result<std::shared_ptr<const Vocabulary>> Vocabulary::Create(std::vector<std::string> token_bytes,
                                                            std::vector<bool> is_special,
                                                            std::vector<int32_t> stop_token_ids) {
  if (token_bytes.empty()) return InvalidArgumentError("vocabulary: no tokens");
  if (token_bytes.size() != is_special.size()) {
    return InvalidArgumentError(fmt::format("vocabulary: {} token byte strings but {} special flags",
                                            token_bytes.size(), is_special.size()));
  }
  if (token_bytes.size() > (1u << 30)) return InvalidArgumentError("vocabulary: too many tokens");
  for (int32_t id : stop_token_ids) {
    if (id < 0 || static_cast<size_t>(id) >= token_bytes.size()) {
      return InvalidArgumentError(fmt::format("vocabulary: stop token id {} is out of range", id));
    }
  }
  std::shared_ptr<Vocabulary> v(new Vocabulary());
  v->token_bytes_ = std::move(token_bytes);
  v->is_special_ = std::move(is_special);
  std::sort(stop_token_ids.begin(), stop_token_ids.end());
  stop_token_ids.erase(std::unique(stop_token_ids.begin(), stop_token_ids.end()), stop_token_ids.end());
  v->stop_token_ids_ = std::move(stop_token_ids);
  v->ordinary_mask_.assign(static_cast<size_t>(v->bitmask_words()), 0u);

  std::vector<std::pair<std::string, int32_t>> ordinary;
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  for (int32_t id = 0; id < v->size(); ++id) {
    const std::string& b = v->token_bytes_[static_cast<size_t>(id)];
    for (unsigned char c : b) mix(c);
    mix(0x100u + (v->IsSpecial(id) ? 1u : 0u));
    if (v->IsSpecial(id) || v->IsStop(id) || b.empty()) continue;
    if (b.size() > 255) {
      return InvalidArgumentError(fmt::format("vocabulary: token {} is longer than 255 bytes", id));
    }
    ordinary.emplace_back(b, id);
    v->ordinary_mask_[static_cast<size_t>(id) / 32] |= 1u << (id % 32);
    v->max_token_bytes_ = std::max(v->max_token_bytes_, static_cast<int32_t>(b.size()));
  }
  for (int32_t id : v->stop_token_ids_) mix(0x200u + static_cast<uint64_t>(id));
  v->fingerprint_ = h;
  v->trie_ = std::make_shared<internal::TokenTrie>(internal::TokenTrie::Build(std::move(ordinary)));
  return std::shared_ptr<const Vocabulary>(std::move(v));
}

bool Vocabulary::IsStop(int32_t id) const {
  return std::binary_search(stop_token_ids_.begin(), stop_token_ids_.end(), id);
}

std::optional<int32_t> Vocabulary::FindSpecial(std::string_view text) const {
  for (int32_t id = 0; id < size(); ++id) {
    if (IsSpecial(id) && token_bytes_[static_cast<size_t>(id)] == text) return id;
  }
  return std::nullopt;
}

}  // namespace gemmad::constrain
