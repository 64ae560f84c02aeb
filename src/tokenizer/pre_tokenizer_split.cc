// SplitBySpans: HF NormalizedString::split over a list of matches, for every behavior.
#include "tokenizer/pre_tokenizer.h"

#include <algorithm>

namespace gemmad::tokenizer {

void SplitBySpans(const Piece& piece, const std::vector<std::pair<size_t, size_t>>& matches, bool invert,
                  SplitBehavior behavior, std::vector<Piece>* out) {
  const std::string& text = piece.text;
  if (text.empty()) return;
  // (start, end, is_match) covering the whole text (Pattern::find_matches).
  struct Span {
    size_t a, b;
    bool m;
  };
  std::vector<Span> spans;
  spans.reserve(2 * matches.size() + 1);
  size_t prev = 0;
  for (auto [s, e] : matches) {
    if (prev != s) spans.push_back({prev, s, invert});
    spans.push_back({s, e, !invert});
    prev = e;
  }
  if (prev != text.size()) spans.push_back({prev, text.size(), invert});

  // (start, end, remove) after applying the behavior.
  std::vector<Span> cuts;
  cuts.reserve(spans.size());
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (const Span& s : spans) cuts.push_back({s.a, s.b, false});
      break;
    case SplitBehavior::kRemoved:
      cuts = spans;
      break;
    case SplitBehavior::kContiguous: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.m == previous && !cuts.empty()) {
          cuts.back().b = s.b;
        } else {
          cuts.push_back({s.a, s.b, false});
        }
        previous = s.m;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous = false;
      for (const Span& s : spans) {
        if (s.m && !previous && !cuts.empty()) {
          cuts.back().b = s.b;
        } else {
          cuts.push_back({s.a, s.b, false});
        }
        previous = s.m;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous = false;
      for (size_t k = spans.size(); k-- > 0;) {
        const Span& s = spans[k];
        if (s.m && !previous && !cuts.empty()) {
          cuts.back().a = s.a;
        } else {
          cuts.push_back({s.a, s.b, false});
        }
        previous = s.m;
      }
      std::reverse(cuts.begin(), cuts.end());
      break;
    }
  }
  for (const Span& c : cuts) {
    if (c.m || c.a == c.b) continue;
    out->push_back({text.substr(c.a, c.b - c.a), piece.at_origin && c.a == 0});
  }
}

}  // namespace gemmad::tokenizer
