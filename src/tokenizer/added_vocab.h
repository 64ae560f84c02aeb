// AddedVocab: the "added_tokens" of tokenizer.json (HF AddedVocabulary). Assigns their ids (the
// model's id when the content is in its vocabulary, else the next free id), and splits text at
// their occurrences with leftmost-longest matching and the single_word / lstrip / rstrip rules.
// Two sets: tokens matched on the raw input (normalized=false) and on normalized text.
// Invariant: immutable after Build, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "tokenizer/hash_map.h"

namespace gemmad::tokenizer {

class BpeModel;
class Normalizer;

struct AddedToken {
  std::string content;
  std::string decode_form;  // content, or its normalized form when normalized=true
  int32_t id = -1;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

class AddedVocab {
 public:
  // `j` is the "added_tokens" array (may be null).
  Status Build(const nlohmann::json& j, const BpeModel& model, const Normalizer* normalizer);

  struct Segment {
    size_t begin, end;
    int32_t id;  // -1: ordinary text
  };
  // Cuts `text` into ordinary text and added tokens of one set (HF find_matches).
  void Split(std::string_view text, bool normalized_set, std::vector<Segment>* out) const;

  const AddedToken* Find(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < by_id_.size() && by_id_[id] >= 0 ? &tokens_[by_id_[id]] : nullptr;
  }
  int32_t FindContent(std::string_view content) const { return by_content_.Find(content); }
  bool IsSpecialContent(std::string_view s) const { return special_contents_.Find(s) >= 0; }
  int32_t id_limit() const { return static_cast<int32_t>(by_id_.size()); }
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  struct Trie {
    struct Node {
      std::vector<std::pair<uint8_t, int32_t>> edges;  // sorted by byte
      int32_t token = -1;                             // index into tokens_
    };
    std::vector<Node> nodes;
    int32_t root_edges[256];
    bool empty = true;
    void Add(std::string_view pattern, int32_t token);
    // Longest pattern starting at `pos`: returns its token index and sets *end, or -1.
    int32_t LongestAt(std::string_view text, size_t pos, size_t* end) const;
  };

  std::vector<AddedToken> tokens_;
  std::vector<int32_t> by_id_;  // id -> index into tokens_, -1 when not added
  StringIdMap by_content_, special_contents_;
  Trie raw_trie_, normalized_trie_;
};

}  // namespace gemmad::tokenizer
