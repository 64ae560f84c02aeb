// VocabularyFromTokenizer (vocabulary_from_tokenizer.h).
#include "constrain/vocabulary_from_tokenizer.h"

#include <algorithm>

namespace gemmad::constrain {

Result<std::shared_ptr<const Vocabulary>> VocabularyFromTokenizer(const tokenizer::Tokenizer& tok,
                                                                 std::vector<int32_t> stop_token_ids,
                                                                 int32_t size) {
  const int32_t n = size > 0 ? size : tok.vocab_size();
  std::vector<std::string> bytes(static_cast<size_t>(n));
  std::vector<bool> special(static_cast<size_t>(n), true);
  for (int32_t id = 0; id < std::min(n, tok.vocab_size()); ++id) {
    bytes[static_cast<size_t>(id)] = tok.TokenBytes(id);
    special[static_cast<size_t>(id)] = tok.IsSpecial(id);
  }
  return Vocabulary::Create(std::move(bytes), std::move(special), std::move(stop_token_ids));
}

}  // namespace gemmad::constrain
