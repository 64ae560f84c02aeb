// LoadSourceTokenizer (see model_tokenizer.h).
#include "cli/model_tokenizer.h"

#include "base/files.h"
#include "io/gguf_file.h"
#include "tokenizer/gguf_tokenizer.h"

namespace gemmad::cli {

Result<std::unique_ptr<tokenizer::Tokenizer>> LoadSourceTokenizer(const model::WeightSource& source,
                                                                  const std::string& model_path) {
  const model::TokenizerHints& hints = source.tokenizer_hints();
  if (!hints.gguf_file.empty()) {
    GEMMAD_ASSIGN_OR_RETURN(io::GgufFile file, io::GgufFile::Open(hints.gguf_file));
    return tokenizer::TokenizerFromGguf(file.metadata(), hints.gguf_file);
  }
  const std::string dir = hints.tokenizer_dir.empty() ? model_path : hints.tokenizer_dir;
  if (!FileExists(JoinPath(dir, "tokenizer.json"))) return std::unique_ptr<tokenizer::Tokenizer>();
  return tokenizer::Tokenizer::Load(dir);
}

}  // namespace gemmad::cli
