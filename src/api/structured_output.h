// StructuredOutputs: the server's side of structured outputs (api.md §10) and of forced tool
// calls (tool_choice "required" / named, docs/structured-outputs.md). A request's fields are read
// by constrain::ParseRequestConstraint / ToolCallConstraint, compiled once per spec (GrammarCache
// over the served tokenizer's vocabulary, built on first use) and handed to the engine as a
// TokenConstraintFactory: one constrain::Matcher per output sequence. With a reasoning parser
// configured (and enable_in_reasoning off) the matcher starts only once the thinking channel has
// closed (vLLM's is_reasoning_end over prompt + output ids); with thinking off the rendered prompt
// already ends the channel, so the output is constrained from its first token.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "api/api_error.h"
#include "api/request_fields.h"
#include "base/result.h"
#include "constrain/compiled_grammar.h"
#include "constrain/grammar_cache.h"
#include "constrain/matcher.h"
#include "constrain/request.h"
#include "sample/token_constraint.h"

namespace gemmad::tokenizer {
class Tokenizer;
}  // namespace gemmad::tokenizer

namespace gemmad::api {

struct ServingContext;

class StructuredOutputs {
 public:
  // `stop_token_ids`: the ids a complete constraint allows (the engine's EOS set).
  // `vocab_size`: the model's logits width (the engine's bitmask size).
  // `max_concurrent_compiles`: compilations running at once (0: no bound); see GrammarCache.
  StructuredOutputs(const tokenizer::Tokenizer* tokenizer, int32_t vocab_size, std::vector<int32_t> stop_token_ids,
                    constrain::StructuredOutputsConfig config, size_t max_concurrent_compiles = 0);

  const constrain::StructuredOutputsConfig& config() const { return config_; }
  // Thread-safe; compiles each spec once within `budget` (errors are InvalidArgument /
  // Unimplemented; Cancelled when budget.cancelled() turned true).
  Result<std::shared_ptr<const constrain::CompiledGrammar>> Compile(const constrain::ConstraintSpec& spec,
                                                                    const constrain::CompileBudget& budget = {}) const;

 private:
  const tokenizer::Tokenizer* tokenizer_;
  int32_t vocab_size_;
  std::vector<int32_t> stop_token_ids_;
  constrain::StructuredOutputsConfig config_;
  size_t max_concurrent_compiles_;
  mutable std::once_flag once_;
  mutable Status vocab_status_;
  mutable std::unique_ptr<constrain::GrammarCache> cache_;
};

// One sequence's constraint: a Matcher, optionally gated by the thinking channel.
class MatcherConstraint : public sample::TokenConstraint {
 public:
  // `gated`: wait until the reasoning has ended over prompt_ids + output (checked at once, so
  // a prompt that already closed the channel constrains from the first token).
  MatcherConstraint(std::shared_ptr<const constrain::CompiledGrammar> grammar, bool gated,
                    std::span<const int32_t> prompt_ids);
  bool FillNextTokenBitmask(std::span<uint32_t> bitmask) override;
  Status AcceptToken(int32_t token_id) override;
  bool active() const { return active_; }

 private:
  constrain::Matcher matcher_;
  bool active_ = true;
  std::vector<int32_t> history_;  // prompt + output while gated (cleared once active)
};

struct ConstraintInputs {
  const Json* body = nullptr;               // the request object
  bool chat = false;                        // chat: tool_choice applies, thinking gates
  bool parallel_tool_calls = true;
  std::span<const int32_t> prompt_ids;      // chat: the rendered prompt's ids
  std::function<bool()> cancelled;          // the client went away: stop compiling; may be empty
};

// Leaves *out empty when the request asks for no constraint. A forced tool choice replaces any
// response_format / structured_outputs (as vLLM does). Every error is a 400 naming the field.
std::optional<ApiError> BuildConstraint(const ServingContext& ctx, const ConstraintInputs& in,
                                        sample::TokenConstraintFactory* out);

}  // namespace gemmad::api
