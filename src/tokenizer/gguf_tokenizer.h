// The tokenizer of a Gemma GGUF file, id for id equal to the Hugging Face tokenizer the file was
// converted from (spec gguf.md §2). The metadata is turned back into the HF tokenizer.json (BPE with
// byte fallback, the " "->"▁" normalizer, the <bos> template, the ▁/byte-fallback/fuse decoder,
// the added tokens) and tokenizer_config.json (bos/eos/pad/unk names), which Tokenizer::FromJson
// loads. Supported: tokenizer.ggml.model "gemma4" (merges in the file) and "llama" with
// add_space_prefix false (Gemma 3 SentencePiece; merges rebuilt from the scores as transformers'
// GemmaConverter does). Known differences from HF, both inherent to the files: Gemma 3 GGUFs drop
// HF's <image_soft_token> (id 262144), and the ids come from the file (e.g. eos_id() is the file's
// tokenizer.ggml.eos_token_id, 1 in some Gemma 3 files where tokenizer_config.json says 106).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "io/gguf_metadata.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {

struct GgufTokenizerJson {
  std::string tokenizer_json;  // an HF tokenizer.json
  std::string config_json;     // a tokenizer_config.json with bos/eos/pad/unk_token
};

// The HF files of the GGUF tokenizer. Errors name the offending key (see ReadGgufVocab).
Result<GgufTokenizerJson> TokenizerJsonFromGguf(const io::GgufMetadata& md);

// TokenizerJsonFromGguf + Tokenizer::FromJson; errors are prefixed with `origin` (e.g. the path).
// About 1 s for a 262,144-token file.
Result<std::unique_ptr<Tokenizer>> TokenizerFromGguf(const io::GgufMetadata& md, std::string_view origin = "GGUF");

// tokenizer.chat_template when present as a STRING; nullopt otherwise.
std::optional<std::string> GgufChatTemplate(const io::GgufMetadata& md);

}  // namespace gemmad::tokenizer
