// Normalizers of tokenizer.json: Sequence, Replace, Prepend, NFC, NFD, NFKC, NFKD, Lowercase,
// Strip, StripAccents (HF `tokenizers` semantics). Invariant: immutable, thread-safe.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"

namespace gemmad::tokenizer {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Rewrites `s` (valid UTF-8) in place.
  virtual void Normalize(std::string* s) const = 0;
};

// `j` is the "normalizer" value (not null). Unsupported types are an error naming them.
Result<std::unique_ptr<Normalizer>> ParseNormalizer(const nlohmann::json& j);

}  // namespace gemmad::tokenizer
