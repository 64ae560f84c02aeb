// Test/bench helper: the real Gemma 4 vocabulary (262,144 ids) from shared/data, loaded once.
#pragma once

#include <memory>
#include <string>

#include "base/check.h"
#include "constrain/vocabulary_from_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::constrain::testing {

inline std::string GemmaTokenizerPath(const std::string& shared_dir) {
  return shared_dir + "/data/tokenizers/gemma4/tokenizer.json";
}

// Stop ids of Gemma 4 instruction-tuned checkpoints: <eos>, <turn|>, <|tool_response>.
inline std::shared_ptr<const Vocabulary> GemmaVocab(const std::string& shared_dir) {
  static std::shared_ptr<const Vocabulary> v = [&] {
    auto tok = tokenizer::Tokenizer::Load(GemmaTokenizerPath(shared_dir));
    GEMMAD_CHECK(tok.ok(), "{}", tok.status().ToString());
    auto vocab = VocabularyFromTokenizer(**tok, {1, 106, 50});
    GEMMAD_CHECK(vocab.ok(), "{}", vocab.status().ToString());
    return *vocab;
  }();
  return v;
}

}  // namespace gemmad::constrain::testing
