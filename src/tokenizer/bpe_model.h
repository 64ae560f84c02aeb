// BpeModel: the "BPE" model of tokenizer.json (vocabulary, ranked merges, byte fallback, unk,
// continuing_subword_prefix / end_of_word_suffix, ignore_merges), HF `tokenizers` semantics.
// Invariant: immutable after Parse; Tokenize is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tokenizer/hash_map.h"

namespace gemmad::tokenizer {

class JsonScanner;

class BpeModel {
 public:
  // Reads the "model" object; the scanner is positioned at its '{'.
  static Result<std::unique_ptr<BpeModel>> Parse(JsonScanner* scanner);

  // Appends the ids of one pre-tokenized word (HF BPE::tokenize).
  void Tokenize(std::string_view word, std::vector<int32_t>* ids) const;

  int32_t TokenToId(std::string_view token) const { return vocab_.Find(token); }  // -1: none
  std::string_view IdToToken(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < id_to_token_.size() ? id_to_token_[id] : std::string_view();
  }
  bool HasId(int32_t id) const { return id >= 0 && static_cast<size_t>(id) < has_id_.size() && has_id_[id]; }
  // Number of vocabulary entries (HF BPE::get_vocab_size).
  size_t vocab_size() const { return vocab_.size(); }
  // One past the largest id.
  int32_t id_limit() const { return static_cast<int32_t>(id_to_token_.size()); }
  bool byte_fallback() const { return byte_fallback_; }

 private:
  using Merges = std::vector<std::pair<std::string_view, std::string_view>>;
  Status ParseVocab(JsonScanner* s);
  Status ParseMerges(JsonScanner* s, Merges* merges, std::deque<std::string>* storage);
  Status Build(const Merges& merges);
  int32_t SymbolId(std::string_view piece, bool is_first, bool is_last, std::string* buf) const;
  void MergeAll(std::vector<int32_t>* ids) const;

  StringIdMap vocab_;
  std::vector<std::string_view> id_to_token_;  // views into vocab_'s arena
  std::vector<bool> has_id_;
  U64Map merges_;                              // (a << 32 | b) -> (rank << 32 | new_id)
  std::array<int32_t, 256> byte_ids_{};        // "<0xAB>" ids, -1 when absent
  std::array<int32_t, 128> ascii_ids_{};       // single ASCII characters, when no prefix/suffix
  std::optional<std::string> unk_token_, prefix_, suffix_;
  int32_t unk_id_ = -1;
  bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
};

}  // namespace gemmad::tokenizer
