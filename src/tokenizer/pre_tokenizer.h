// Pre-tokenizers of tokenizer.json: Sequence, Split, Metaspace, ByteLevel, Whitespace,
// WhitespaceSplit, Digits (HF `tokenizers` semantics). A pre-tokenizer cuts each piece of
// normalized text into smaller pieces (and may rewrite them: Metaspace, ByteLevel); the model
// then tokenizes every piece on its own. Invariant: immutable, thread-safe; pieces are never
// empty.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace gemmad::tokenizer {

struct Piece {
  std::string text;
  bool at_origin = false;  // starts at offset 0 of the original input (Metaspace "first")
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void PreTokenize(std::vector<Piece>* pieces) const = 0;
};

// How a split keeps its delimiters (HF SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// Cuts `text` at the given match spans (sorted, non-overlapping) according to `behavior`.
// `invert` swaps which spans count as matches. Empty pieces are dropped.
void SplitBySpans(const Piece& piece, const std::vector<std::pair<size_t, size_t>>& matches, bool invert,
                  SplitBehavior behavior, std::vector<Piece>* out);

Result<std::unique_ptr<PreTokenizer>> ParsePreTokenizer(const nlohmann::json& j);

}  // namespace gemmad::tokenizer
