// SpmMerges: every split of every piece into two pieces, then one stable sort.
#include "tokenizer/spm_merges.h"

#include <algorithm>

#include "tokenizer/hash_map.h"

namespace gemmad::tokenizer {
namespace {

struct Candidate {
  float score;
  int32_t left_len, right_len;  // code points
  int32_t left, right;          // piece ids
};

// Splitting a piece costs O(bytes^2); SentencePiece pieces are short (max_piece_length defaults to
// 16 characters; the longest Gemma piece has 48 bytes), so longer ones are taken as unsplittable.
constexpr size_t kMaxSplitBytes = 256;

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::vector<std::pair<int32_t, int32_t>> SpmMerges(std::span<const std::string_view> pieces,
                                                  std::span<const float> scores) {
  size_t total_bytes = 0;
  for (std::string_view p : pieces) total_bytes += p.size();
  StringIdMap ids;
  ids.Reserve(pieces.size(), total_bytes);
  for (size_t i = 0; i < pieces.size(); ++i) ids.Insert(pieces[i], static_cast<int32_t>(i));

  std::vector<Candidate> all, local;
  for (size_t i = 0; i < pieces.size() && i < scores.size(); ++i) {
    std::string_view p = pieces[i];
    if (p.size() > kMaxSplitBytes) continue;
    int32_t n_chars = 0;
    for (char c : p) n_chars += IsContinuationByte(c) ? 0 : 1;
    local.clear();
    int32_t chars_left = 0;  // code points in p[0, k)
    for (size_t k = 1; k < p.size(); ++k) {
      if (!IsContinuationByte(p[k - 1])) ++chars_left;
      if (IsContinuationByte(p[k])) continue;  // not a code point boundary
      const int32_t l = ids.Find(p.substr(0, k));
      if (l < 0) continue;
      const int32_t r = ids.Find(p.substr(k));
      if (r < 0) continue;
      local.push_back({scores[i], chars_left, n_chars - chars_left, l, r});
    }
    std::sort(local.begin(), local.end(), [](const Candidate& a, const Candidate& b) {
      return a.left != b.left ? a.left < b.left : a.right < b.right;
    });
    all.insert(all.end(), local.begin(), local.end());
  }
  // Python's sorted(key=(score, len_l, len_r), reverse=True) is stable: equal keys keep their order.
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.left_len != b.left_len) return a.left_len > b.left_len;
    return a.right_len > b.right_len;
  });
  std::vector<std::pair<int32_t, int32_t>> merges;
  merges.reserve(all.size());
  for (const Candidate& c : all) merges.emplace_back(c.left, c.right);
  return merges;
}

}  // namespace gemmad::tokenizer
