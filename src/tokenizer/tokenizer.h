// Tokenizer: a Hugging Face `tokenizer.json` (BPE model) with the semantics of HF `tokenizers`
// 0.23.3, id for id. Invariant: a loaded Tokenizer is immutable, so every method is const and
// safe to call from any number of threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::tokenizer {

class Pipeline;  // normalizer, pre-tokenizer, model, post-processor and decoder (internal)

class Tokenizer {
 public:
  // `path` is a model directory (holding tokenizer.json, and optionally tokenizer_config.json)
  // or a tokenizer.json file (a tokenizer_config.json beside it is read too). The config gives
  // the bos/eos/pad/unk token names. Anything in the file that is not supported (a model,
  // normalizer, pre-tokenizer, regex, post-processor or decoder type) is an error naming it.
  // The file's "truncation" and "padding" settings are not applied (transformers switches them
  // off for plain tokenizer calls, which is what vLLM makes).
  static Result<std::unique_ptr<Tokenizer>> Load(const std::string& path);
  // The same from file contents; `config_json` may be empty.
  static Result<std::unique_ptr<Tokenizer>> FromJson(std::string_view tokenizer_json,
                                                     std::string_view config_json = {},
                                                     std::string_view origin = "tokenizer.json");
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // HF `encode(text, add_special_tokens).ids`. Added/special tokens written inside `text` are
  // matched as tokens (HF default). `text` should be UTF-8; invalid bytes are read as U+FFFD.
  std::vector<int32_t> Encode(std::string_view text, bool add_special_tokens) const;
  // HF `decode(ids, skip_special_tokens)`. Ids outside the vocabulary are skipped (as HF does).
  std::string Decode(std::span<const int32_t> ids, bool skip_special_tokens) const;

  // One past the largest id of the model vocabulary and the added tokens (262145 for the shared
  // Gemma 3/4 files, equal to HF get_vocab_size(with_added_tokens=True) there).
  int32_t vocab_size() const;
  // Token string -> id (added tokens first, then the model vocabulary).
  std::optional<int32_t> TokenToId(std::string_view token) const;
  // The vocabulary string of `id` as HF id_to_token gives it (e.g. "▁world", "<0x0A>",
  // "<|turn>"; an added token with normalized=true in its normalized form); "" when unknown.
  std::string_view IdToToken(int32_t id) const;
  // True for added tokens marked "special" (those skip_special_tokens removes).
  bool IsSpecial(int32_t id) const;
  // True for any added token (special or not).
  bool IsAdded(int32_t id) const;
  // The bytes `id` contributes to decoded text in the middle of a sequence, after the decoder:
  // "▁"->" ", "<0xAB>"->the single byte 0xAB (may be an incomplete UTF-8 sequence), ByteLevel
  // characters -> their bytes, added/special tokens -> their content. "" for unknown ids.
  // Concatenating TokenBytes over ids[1..] equals the decode of ids minus the decode of ids[0]
  // for the decoders this class supports (start-of-sequence stripping aside).
  const std::string& TokenBytes(int32_t id) const;

  // Ids of the tokens named by tokenizer_config.json (or, without it, the post-processor /
  // the model's unk token). nullopt when the tokenizer has none.
  std::optional<int32_t> bos_id() const { return bos_id_; }
  std::optional<int32_t> eos_id() const { return eos_id_; }
  std::optional<int32_t> pad_id() const { return pad_id_; }
  std::optional<int32_t> unk_id() const { return unk_id_; }

  // Internal pipeline, for the incremental detokenizer and tests.
  const Pipeline& pipeline() const { return *pipeline_; }

 private:
  explicit Tokenizer(std::unique_ptr<Pipeline> pipeline);
  std::unique_ptr<Pipeline> pipeline_;
  std::optional<int32_t> bos_id_, eos_id_, pad_id_, unk_id_;
};

}  // namespace gemmad::tokenizer
