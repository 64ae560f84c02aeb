// Decoders of tokenizer.json: Sequence, Replace, ByteFallback, Fuse, Strip, Metaspace,
// ByteLevel (HF `tokenizers` semantics). Invariant: immutable, thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace gemmad::tokenizer {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // HF Decoder::decode_chain: rewrites the list of token strings.
  virtual void DecodeChain(std::vector<std::string>* tokens) const = 0;
  // The bytes one token contributes in the middle of a sequence (no start/end handling; byte
  // tokens become raw bytes, not U+FFFD). `*fused` says whether an earlier step joined all
  // tokens into one (then per-token rules see it as the first and only token).
  virtual void MidToken(std::string* token, bool* fused) const = 0;
};

// HF Decoder::decode: DecodeChain then concatenation.
std::string RunDecoder(const Decoder& decoder, std::vector<std::string> tokens);

Result<std::unique_ptr<Decoder>> ParseDecoder(const nlohmann::json& j);

}  // namespace gemmad::tokenizer
