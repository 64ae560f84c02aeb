// Vocabulary: the bytes each token id contributes to decoded text, which ids are special, and which
// ids end generation (stop ids). Built once per served model and shared (immutable) by every
// compiled grammar and matcher. Invariant: size() == number of token ids; special tokens can only
// be matched by grammar terminals naming them (e.g. `<|"|>` in tool calls), never as bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::constrain {

namespace internal {
struct TokenTrie;  // constrain/internal/token_trie.h
}  // namespace internal

class Vocabulary {
 public:
  // token_bytes[id]: the bytes token `id` adds to decoded text (for special tokens: their literal
  // text, e.g. "<|tool_call>"); is_special[id]: control token. stop_token_ids: ids allowed exactly
  // when the constraint is complete (Gemma 4: 1 <eos>, 106 <turn|>, 50 <|tool_response>).
  // Errors: sizes differ, empty vocabulary, a stop id out of range.
  static Result<std::shared_ptr<const Vocabulary>> Create(std::vector<std::string> token_bytes,
                                                          std::vector<bool> is_special,
                                                          std::vector<int32_t> stop_token_ids);

  int32_t size() const { return static_cast<int32_t>(token_bytes_.size()); }
  // Number of uint32 words of a next-token bitmask: ceil(size() / 32).
  int32_t bitmask_words() const { return (size() + 31) / 32; }
  const std::string& TokenBytes(int32_t id) const { return token_bytes_[static_cast<size_t>(id)]; }
  bool IsSpecial(int32_t id) const { return is_special_[static_cast<size_t>(id)]; }
  const std::vector<int32_t>& stop_token_ids() const { return stop_token_ids_; }
  bool IsStop(int32_t id) const;
  // The id of the special token whose text is `text` ("<|\"|>" -> 52), if any.
  std::optional<int32_t> FindSpecial(std::string_view text) const;

  // Non-special, non-stop, non-empty tokens as a byte trie (the mask precomputation walks it).
  const internal::TokenTrie& trie() const { return *trie_; }
  // Bitmask ([bitmask_words()]) of those "ordinary" tokens.
  const std::vector<uint32_t>& ordinary_mask() const { return ordinary_mask_; }
  // Length in bytes of the longest ordinary token.
  int32_t max_token_bytes() const { return max_token_bytes_; }
  // A hash of all token bytes, special flags and stop ids (part of the grammar cache key).
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  Vocabulary() = default;
  std::vector<std::string> token_bytes_;
  std::vector<bool> is_special_;
  std::vector<int32_t> stop_token_ids_;
  std::shared_ptr<const internal::TokenTrie> trie_;
  std::vector<uint32_t> ordinary_mask_;
  int32_t max_token_bytes_ = 0;
  uint64_t fingerprint_ = 0;
};

}  // namespace gemmad::constrain
