// Builds the constrain Vocabulary from the served model's tokenizer (TokenBytes / IsSpecial).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "constrain/vocabulary.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::constrain {

// `stop_token_ids`: the ids allowed when a constraint is complete (for Gemma 4 the EOS set
// {1, 106, 50}, chat-format.md §1.4). Ids past the vocabulary are errors.
// `size`: the number of ids the model samples from (its logits width; bitmasks have that many
// bits); 0 = the tokenizer's size. Tokenizer ids at or past it are left out, and ids the
// tokenizer lacks below it are never allowed (empty special entries).
Result<std::shared_ptr<const Vocabulary>> VocabularyFromTokenizer(const tokenizer::Tokenizer& tok,
                                                                 std::vector<int32_t> stop_token_ids,
                                                                 int32_t size = 0);

}  // namespace gemmad::constrain
