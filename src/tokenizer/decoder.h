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
  // HF Decoder::decode_chain: rewrites the list of token strings. `at_start`: tokens[0] is the
  // first token of the sequence (false for a streaming window that starts later: then the
  // start-of-sequence rules of Metaspace and Strip do not apply to it). `*fused` says whether an
  // earlier step joined all tokens into one.
  virtual void DecodeChain(std::vector<std::string>* tokens, bool at_start, bool* fused) const = 0;
  // The bytes one token contributes in the middle of a sequence (no start/end handling; byte
  // tokens become raw bytes, not U+FFFD). `*fused` says whether an earlier step joined all
  // tokens into one (then per-token rules see it as the first and only token).
  virtual void MidToken(std::string* token, bool* fused) const = 0;
  // True when this decoder (or one in a Sequence) is ByteFallback: then a run of "<0xAB>"
  // tokens decodes as a whole and is undecided until a non-byte token ends it.
  virtual bool HasByteFallback() const { return false; }
};

// The byte of a "<0xAB>" token as HF's ByteFallback reads it, or -1.
int ByteTokenValue(std::string_view token);

// HF Decoder::decode: DecodeChain then concatenation.
std::string RunDecoder(const Decoder& decoder, std::vector<std::string> tokens, bool at_start = true);

Result<std::unique_ptr<Decoder>> ParseDecoder(const nlohmann::json& j);

}  // namespace gemmad::tokenizer
