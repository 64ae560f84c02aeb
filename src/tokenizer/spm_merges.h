// SpmMerges: the BPE merge list of a SentencePiece-BPE vocabulary rebuilt from its piece scores,
// as transformers' GemmaConverter does when it writes tokenizer.json (transformers
// tokenization_utils_base.generate_merges(vocab, vocab_scores), called by
// GemmaSentencePieceExtractor.extract). A GGUF of model "llama" (Gemma 3) carries pieces and
// scores but no merges; this recovers them (spec gguf.md §2.6).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmad::tokenizer {

// `pieces[id]` is the piece text (valid UTF-8, all distinct), `scores[id]` its SentencePiece score
// (same length). For every piece p and every split p = l + r at a code point boundary where both l
// and r are pieces, one merge (id(l), id(r)) with p's score. Order (generate_merges): score
// descending, then len(l) descending, then len(r) descending (lengths in code points); ties keep
// the generation order, which is piece id ascending and, within a piece, (id(l), id(r))
// ascending. The result has at most (total bytes of `pieces`) entries. Pieces over 256 bytes are
// not split (real SentencePiece pieces are far shorter), which bounds the work by 256 x total bytes.
std::vector<std::pair<int32_t, int32_t>> SpmMerges(std::span<const std::string_view> pieces,
                                                  std::span<const float> scores);

}  // namespace gemmad::tokenizer
