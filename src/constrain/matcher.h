// Matcher: one request's position in a CompiledGrammar. Each decoding step the runner asks for the
// next-token bitmask, samples, then AcceptToken()s the sampled id. Stop ids (Vocabulary) are
// allowed exactly when the output so far is complete (CanTerminate()); accepting one terminates.
//
// Thinking: the runner simply does not consult the matcher while the model is inside the
// reasoning channel (until `<channel|>` has been generated when thinking is on; from the first
// token when thinking is off); it neither fills masks nor accepts tokens before that. The tokens
// of the answer that follow are then fed in order. Nothing else is needed here.
//
// Not thread-safe (one request is stepped by one thread); many Matchers may share one grammar.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "constrain/compiled_grammar.h"

namespace gemmad::constrain {

namespace internal {
struct MatcherState;
}  // namespace internal

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<const CompiledGrammar> grammar);
  ~Matcher();
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;

  const CompiledGrammar& grammar() const { return *grammar_; }
  // Words of the bitmask: ceil(vocab_size / 32).
  int32_t bitmask_words() const { return grammar_->vocabulary().bitmask_words(); }

  // Writes the allowed next tokens into `words` ([bitmask_words()] uint32): bit (id % 32) of word
  // (id / 32) is 1 when token `id` is allowed. Padding bits past the vocabulary are 0. After
  // termination only the stop ids are set. Never leaves the mask empty unless the grammar is
  // terminated with no stop ids configured.
  void FillNextTokenBitmask(std::span<uint32_t> words);

  // Advances by one token. Returns false (and changes nothing) when `id` is not allowed.
  bool AcceptToken(int32_t id);
  // Advances by raw bytes (tests, jump-forward); false and unchanged when not allowed. Counts as
  // one step for Rollback.
  bool AcceptBytes(std::string_view bytes);

  // Undoes the last `num_tokens` accepted tokens (speculative decoding). Returns false and
  // changes nothing when fewer than `num_tokens` were accepted since construction / Reset().
  bool Rollback(int32_t num_tokens);

  // True when the output so far is a complete match (a stop id may be sampled now).
  bool CanTerminate() const;
  // True once a stop id has been accepted.
  bool IsTerminated() const;
  // True when the output is complete and nothing but a stop id may follow.
  bool MustTerminate() const;
  // Back to the state after construction.
  void Reset();
  // Tokens accepted since construction / Reset() (a terminating stop id included).
  int32_t num_accepted_tokens() const;

  // The fewest bytes that must still be generated before CanTerminate() (0 when it already can).
  // Used by tests that drive random walks to completion.
  int32_t MinBytesToComplete() const;

 private:
  void CheckUndecided(std::span<uint32_t> words);
  std::shared_ptr<const CompiledGrammar> grammar_;
  std::unique_ptr<internal::MatcherState> state_;
};

}  // namespace gemmad::constrain
