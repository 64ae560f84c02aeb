// The tokenizer of an opened weight source: tokenizer.json in its directory, or the GGUF file's own
// tokenizer metadata (tokenizer/gguf_tokenizer.h). Shared by `serve` and `generate`.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "model/weight_source.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::cli {

// nullptr (not an error) when the source ships no tokenizer at all.
Result<std::unique_ptr<tokenizer::Tokenizer>> LoadSourceTokenizer(const model::WeightSource& source,
                                                                  const std::string& model_path);

}  // namespace gemmad::cli
