// Pipeline: one loaded tokenizer.json — added tokens, normalizer, pre-tokenizer, BPE model,
// post-processor, decoder — and the encode/decode flow of HF TokenizerImpl. Internal to the
// tokenizer module (the public face is Tokenizer). Invariant: immutable after Parse.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "tokenizer/added_vocab.h"
#include "tokenizer/bpe_model.h"
#include "tokenizer/decoder.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizer.h"

namespace gemmad::tokenizer {

class Pipeline {
 public:
  // `json` is the whole tokenizer.json text.
  static Result<std::unique_ptr<Pipeline>> Parse(std::string_view json);

  void Encode(std::string_view text, bool add_special_tokens, std::vector<int32_t>* ids) const;
  // `at_start` false: `ids` continue a sequence (streaming windows; see Decoder::DecodeChain).
  std::string Decode(std::span<const int32_t> ids, bool skip_special_tokens, bool at_start = true) const;

  // HF token_to_id / id_to_token: added tokens first, then the model. -1 / "" when unknown.
  int32_t TokenToId(std::string_view token) const;
  std::string_view IdToToken(int32_t id) const;
  const std::string& TokenBytes(int32_t id) const;
  // For streaming: `id` contributes nothing to a decode (unknown, or a skipped special token).
  bool DecodesToNothing(int32_t id, bool skip_special_tokens) const;
  // For streaming: `id` is a "<0xAB>" token of a ByteFallback decoder (its run decodes as one).
  bool IsByteRunToken(int32_t id) const;
  int32_t id_limit() const { return std::max(model_->id_limit(), added_.id_limit()); }

  const AddedVocab& added() const { return added_; }
  const BpeModel& model() const { return *model_; }
  const PostProcessor* post_processor() const { return post_processor_.get(); }

 private:
  void EncodeText(std::string_view text, bool at_origin, std::vector<int32_t>* ids) const;

  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<BpeModel> model_;
  std::unique_ptr<PostProcessor> post_processor_;
  std::unique_ptr<Decoder> decoder_;
  AddedVocab added_;
  mutable std::once_flag token_bytes_once_;
  mutable std::vector<std::string> token_bytes_;
};

}  // namespace gemmad::tokenizer
