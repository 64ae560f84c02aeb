// Added-token id assignment and matching.
#include "tokenizer/added_vocab.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenizer/bpe_model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

// Last code point of s[0, end) (end > 0).
char32_t LastChar(std::string_view s, size_t end, size_t* start) {
  size_t a = end - 1;
  while (a > 0 && (static_cast<unsigned char>(s[a]) & 0xC0) == 0x80) --a;
  *start = a;
  size_t p = a;
  return unicode::DecodeUtf8(s, &p);
}

}  // namespace

void AddedVocab::Trie::Add(std::string_view pattern, int32_t token) {
  if (nodes.empty()) {
    nodes.emplace_back();
    std::fill(std::begin(root_edges), std::end(root_edges), -1);
  }
  empty = false;
  int32_t node = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const uint8_t b = static_cast<uint8_t>(pattern[i]);
    int32_t child = -1;
    if (node == 0) {
      child = root_edges[b];
    } else {
      auto& e = nodes[node].edges;
      auto it = std::lower_bound(e.begin(), e.end(), std::make_pair(b, INT32_MIN));
      if (it != e.end() && it->first == b) child = it->second;
    }
    if (child < 0) {
      child = static_cast<int32_t>(nodes.size());
      nodes.emplace_back();
      if (node == 0) {
        root_edges[b] = child;
      } else {
        auto& e = nodes[node].edges;
        e.insert(std::lower_bound(e.begin(), e.end(), std::make_pair(b, INT32_MIN)), {b, child});
      }
    }
    node = child;
  }
  nodes[node].token = token;
}

int32_t AddedVocab::Trie::LongestAt(std::string_view text, size_t pos, size_t* end) const {
  int32_t node = root_edges[static_cast<uint8_t>(text[pos])];
  int32_t best = -1;
  size_t i = pos + 1;
  while (node >= 0) {
    if (nodes[node].token >= 0) best = nodes[node].token, *end = i;
    if (i >= text.size()) break;
    const auto& e = nodes[node].edges;
    const uint8_t b = static_cast<uint8_t>(text[i]);
    auto it = std::lower_bound(e.begin(), e.end(), std::make_pair(b, INT32_MIN));
    node = (it != e.end() && it->first == b) ? it->second : -1;
    ++i;
  }
  return best;
}

Status AddedVocab::Build(const nlohmann::json& j, const BpeModel& model, const Normalizer* normalizer) {
  if (j.is_null()) return OkStatus();
  if (!j.is_array()) return DataLossError("tokenizer.json: added_tokens must be a list");
  // HF AddedVocabulary::add_tokens: the next new id follows the model vocabulary.
  int32_t next_id = static_cast<int32_t>(model.vocab_size());
  for (const auto& item : j) {
    if (!item.is_object() || !item.contains("content") || !item["content"].is_string()) {
      return DataLossError("tokenizer.json: added_tokens: entry without a \"content\" string");
    }
    AddedToken t;
    t.content = item["content"].get<std::string>();
    auto flag = [&](const char* key, bool dflt) {
      return item.contains(key) && item[key].is_boolean() ? item[key].get<bool>() : dflt;
    };
    t.single_word = flag("single_word", false);
    t.lstrip = flag("lstrip", false);
    t.rstrip = flag("rstrip", false);
    t.normalized = flag("normalized", true);
    t.special = flag("special", false);
    if (t.content.empty()) continue;
    int32_t existing = by_content_.Find(t.content);
    if (existing >= 0) {
      const AddedToken& old = tokens_[by_id_[existing]];
      if (old.single_word == t.single_word && old.lstrip == t.lstrip && old.rstrip == t.rstrip &&
          old.normalized == t.normalized && old.special == t.special) {
        continue;
      }
    }
    int32_t id = existing >= 0 ? existing : model.TokenToId(t.content);
    if (id < 0) id = next_id++;
    t.id = id;
    t.decode_form = t.content;
    if (t.normalized && normalizer != nullptr) normalizer->Normalize(&t.decode_form);
    by_content_.Insert(t.content, id);
    if (t.special) special_contents_.Insert(t.content, id);
    if (static_cast<size_t>(id) >= by_id_.size()) by_id_.resize(id + 1, -1);
    if (by_id_[id] >= 0) {
      tokens_[by_id_[id]] = std::move(t);
    } else {
      by_id_[id] = static_cast<int32_t>(tokens_.size());
      tokens_.push_back(std::move(t));
    }
  }
  for (size_t k = 0; k < tokens_.size(); ++k) {
    const AddedToken& t = tokens_[k];
    if (t.normalized) {
      if (!t.decode_form.empty()) normalized_trie_.Add(t.decode_form, static_cast<int32_t>(k));
    } else {
      raw_trie_.Add(t.content, static_cast<int32_t>(k));
    }
  }
  return OkStatus();
}

void AddedVocab::Split(std::string_view s, bool normalized_set, std::vector<Segment>* out) const {
  out->clear();
  const Trie& trie = normalized_set ? normalized_trie_ : raw_trie_;
  if (s.empty()) return;
  if (trie.empty) {
    out->push_back({0, s.size(), -1});
    return;
  }
  size_t start_offset = 0, pos = 0;
  while (pos < s.size()) {
    size_t mend = 0;
    int32_t k = trie.LongestAt(s, pos, &mend);
    if (k < 0) {
      ++pos;
      continue;
    }
    size_t start = pos, stop = mend;
    pos = mend;  // matches never overlap, even when this one is discarded
    const AddedToken& t = tokens_[k];
    if (t.single_word) {
      size_t dummy;
      bool start_space = start == 0 || !unicode::IsRegexWordChar(LastChar(s, start, &dummy));
      bool stop_space = true;
      if (stop < s.size()) {
        size_t p = stop;
        stop_space = !unicode::IsRegexWordChar(unicode::DecodeUtf8(s, &p));
      }
      if (!start_space || !stop_space) continue;
    }
    if (t.lstrip) {
      size_t newstart = start;
      while (newstart > 0) {
        size_t a;
        if (!unicode::IsWhitespace(LastChar(s, newstart, &a))) break;
        newstart = a;
      }
      start = std::max(newstart, start_offset);
    }
    if (t.rstrip) {
      while (stop < s.size()) {
        size_t p = stop;
        if (!unicode::IsWhitespace(unicode::DecodeUtf8(s, &p))) break;
        stop = p;
      }
    }
    if (start_offset < start) out->push_back({start_offset, start, -1});
    out->push_back({start, stop, t.id});
    start_offset = stop;
  }
  if (start_offset != s.size()) out->push_back({start_offset, s.size(), -1});
}

}  // namespace gemmad::tokenizer
