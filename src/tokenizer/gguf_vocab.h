// GgufVocab: the tokenizer metadata of a Gemma GGUF (spec gguf.md §2.1–2.4), read and checked,
// with the pieces as the Hugging Face tokenizer.json spells them and the BPE merges in rank order
// (from tokenizer.ggml.merges for model "gemma4", rebuilt from the SentencePiece scores for
// model "llama"), and the rule that recovers HF's added tokens and their "special" flags (§2.6).
// Internal to the tokenizer module; gguf_tokenizer.h is the public face.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "io/gguf_metadata.h"

namespace gemmad::tokenizer {

// tokenizer.ggml.token_type values (spec §2.2).
enum GgufTokenType : int32_t {
  kGgufUndefined = 0,
  kGgufNormal = 1,
  kGgufUnknown = 2,
  kGgufControl = 3,
  kGgufUserDefined = 4,
  kGgufUnused = 5,
  kGgufByte = 6,
};

struct GgufVocab {
  bool spm = false;                  // model "llama" (Gemma 3); false: "gemma4"
  std::vector<std::string> tokens;   // HF text by id; Gemma 3 USER_DEFINED ' ' mapped back to "▁"
  std::vector<int32_t> types;        // GgufTokenType by id (NORMAL when the file has no types)
  std::vector<std::pair<int32_t, int32_t>> merges;  // (left id, right id), rank order
  std::optional<int32_t> bos, eos, unk, pad;
  bool add_bos = true, add_eos = false;
};

// Reads and checks the tokenizer.* keys. Errors (InvalidArgument / NotFound / Unimplemented) name
// the key: a missing or mistyped array, arrays of different lengths, a token that is not valid
// UTF-8 or occurs twice, a token type outside 0..6, a special-token id out of range, a merge that
// is not "left right" over two tokens whose concatenation is a token, an unsupported
// tokenizer.ggml.model, a SentencePiece file with add_space_prefix (Llama-style, not Gemma).
Result<GgufVocab> ReadGgufVocab(const io::GgufMetadata& md);

struct GgufAddedToken {
  int32_t id;
  bool special;
};

// The HF added tokens (spec §2.6), in id order: every UNKNOWN/CONTROL/USER_DEFINED token; every
// NORMAL (or untyped) token of two or more code points that no merge produces (the HTML tags,
// <unusedN>, [multimodal], ... that Gemma 4 converters leave NORMAL); and the whitespace runs
// (any run of "\n" or "\t", "▁" runs of two or more). `special` is HF's flag, which the token
// types do not carry (a Gemma 3 file types <start_of_image> USER_DEFINED like <table>, Gemma 4
// converters leave <|turn> NORMAL and type <mask> CONTROL): true for the bos/eos/unk/pad ids, for
// the special tokens of the HF Gemma 3 and Gemma 4 tokenizers by name, and for CONTROL tokens other
// than <unusedN> and <mask>.
std::vector<GgufAddedToken> GgufAddedTokens(const GgufVocab& vocab);

}  // namespace gemmad::tokenizer
