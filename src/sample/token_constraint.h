// TokenConstraint: the per-sequence hook through which a grammar (structured outputs) limits
// sampling. The sampler asks for an allowed-token bitmask before each sampled token and reports
// every accepted token. Implementations live above sample/ (constrain/ cannot include sample/,
// so the adapter around its matcher sits in api/ or here); the engine calls them only on its
// own thread, one sequence at a time, so implementations need no locking.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "base/status.h"

namespace gemmad::sample {

// Number of 32-bit words in a bitmask over `vocab_size` tokens.
inline constexpr int64_t BitmaskWords(int64_t vocab_size) { return (vocab_size + 31) / 32; }
// Bit (t % 32) of word (t / 32) set <=> token t allowed.
inline bool BitmaskAllows(std::span<const uint32_t> mask, int32_t t) {
  return (mask[static_cast<size_t>(t) / 32] >> (static_cast<uint32_t>(t) % 32)) & 1u;
}

class TokenConstraint {
 public:
  virtual ~TokenConstraint() = default;
  // Writes the mask for the next token into `bitmask` (BitmaskWords(vocab) words, all of which
  // must be written). Returns false when no restriction applies at this step (for instance
  // while the model is inside its thinking channel); the mask is then ignored.
  virtual bool FillNextTokenBitmask(std::span<uint32_t> bitmask) = 0;
  // The token that was sampled for this sequence (always one the last mask allowed, unless
  // the mask allowed nothing). A non-ok Status finishes the request with finish_reason error.
  virtual Status AcceptToken(int32_t token_id) = 0;
};

// Makes one fresh constraint per output sequence (n > 1 needs n independent states). Called n
// times inside EngineClient::Submit, on the submitting thread.
using TokenConstraintFactory = std::function<std::unique_ptr<TokenConstraint>()>;

}  // namespace gemmad::sample
