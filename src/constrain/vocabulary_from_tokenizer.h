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
// {1, 106, 50}, chat-format.md §1.4). Ids past the tokenizer's vocabulary are errors.
Result<std::shared_ptr<const Vocabulary>> VocabularyFromTokenizer(const tokenizer::Tokenizer& tok,
                                                                 std::vector<int32_t> stop_token_ids);

}  // namespace gemmad::constrain
