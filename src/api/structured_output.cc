// StructuredOutputs, MatcherConstraint, BuildConstraint (see structured_output.h).
#include "api/structured_output.h"

#include <fmt/format.h>

#include <utility>

#include "api/serving_context.h"
#include "constrain/vocabulary_from_tokenizer.h"
#include "parse/reasoning/reasoning_parser.h"

namespace gemmad::api {
namespace {

constexpr size_t kGrammarCacheCapacity = 128;

// The token ids after which vLLM's is_reasoning_end can change (any other token leaves it).
bool IsReasoningMarker(int32_t id) {
  const parse::Gemma4ReasoningIds ids;
  return id == ids.channel_start || id == ids.channel_end || id == ids.turn_start || id == ids.tool_call_start ||
         id == ids.tool_response_start || id == ids.tool_response_end;
}

ApiError ConstraintError(const Status& s) {
  // Unsupported schema features are the client's problem too: 400, as vLLM's backends answer.
  return ApiError::BadRequest(s.message());
}

}  // namespace

StructuredOutputs::StructuredOutputs(const tokenizer::Tokenizer* tokenizer, int32_t vocab_size,
                                     std::vector<int32_t> stop_token_ids, constrain::StructuredOutputsConfig config,
                                     size_t max_concurrent_compiles)
    : tokenizer_(tokenizer),
      vocab_size_(vocab_size),
      stop_token_ids_(std::move(stop_token_ids)),
      config_(std::move(config)),
      max_concurrent_compiles_(max_concurrent_compiles) {}

Result<std::shared_ptr<const constrain::CompiledGrammar>> StructuredOutputs::Compile(
    const constrain::ConstraintSpec& spec, const constrain::CompileBudget& budget) const {
  std::call_once(once_, [&] {
    auto vocab = constrain::VocabularyFromTokenizer(*tokenizer_, stop_token_ids_, vocab_size_);
    if (!vocab.ok()) {
      vocab_status_ = vocab.status();
      return;
    }
    cache_ = std::make_unique<constrain::GrammarCache>(std::move(*vocab), kGrammarCacheCapacity,
                                                       max_concurrent_compiles_);
  });
  if (!vocab_status_.ok()) return vocab_status_;
  return cache_->GetOrCompile(spec, budget);
}

MatcherConstraint::MatcherConstraint(std::shared_ptr<const constrain::CompiledGrammar> grammar, bool gated,
                                     std::span<const int32_t> prompt_ids)
    : matcher_(std::move(grammar)) {
  if (gated) {
    history_.assign(prompt_ids.begin(), prompt_ids.end());
    active_ = parse::Gemma4ReasoningEnded(history_);
    if (active_) history_.clear();
  }
}

bool MatcherConstraint::FillNextTokenBitmask(std::span<uint32_t> bitmask) {
  if (!active_) return false;
  matcher_.FillNextTokenBitmask(bitmask);
  return true;
}

Status MatcherConstraint::AcceptToken(int32_t token_id) {
  if (!active_) {
    // Inside the thinking channel: the token is free; the grammar starts after the one that
    // ends the reasoning (it is not part of the constrained answer).
    history_.push_back(token_id);
    if (IsReasoningMarker(token_id) && parse::Gemma4ReasoningEnded(history_)) {
      active_ = true;
      history_.clear();
      history_.shrink_to_fit();
    }
    return OkStatus();
  }
  if (!matcher_.AcceptToken(token_id)) {
    return InvalidArgumentError(fmt::format("token {} is not allowed by the structured-output grammar", token_id));
  }
  return OkStatus();
}

std::optional<ApiError> BuildConstraint(const ServingContext& ctx, const ConstraintInputs& in,
                                        sample::TokenConstraintFactory* out) {
  *out = nullptr;
  if (ctx.structured_outputs == nullptr || in.body == nullptr) return std::nullopt;
  const StructuredOutputs& so = *ctx.structured_outputs;
  std::optional<constrain::ConstraintSpec> spec;
  if (in.chat) {
    const Json& body = *in.body;
    auto tc = body.find("tool_choice");
    auto tools = body.find("tools");
    if (tc != body.end() && !tc->is_null() && tools != body.end() && tools->is_array()) {
      auto forced = constrain::ToolCallConstraint(*tools, *tc, in.parallel_tool_calls);
      if (!forced.ok()) return ConstraintError(forced.status());
      spec = std::move(*forced);
      // vLLM hands the tools' parameter schemas to the same (strict by default) backend.
      if (spec) spec->disable_additional_properties |= constrain::ClosesObjectsByDefault(so.config());
    }
  }
  if (!spec) {
    auto requested = constrain::ParseRequestConstraint(*in.body, so.config());
    if (!requested.ok()) return ConstraintError(requested.status());
    spec = std::move(*requested);
  }
  if (!spec) return std::nullopt;
  constrain::CompileBudget budget = ctx.limits.compile;
  budget.cancelled = in.cancelled;
  auto grammar = so.Compile(*spec, budget);
  if (!grammar.ok()) return ConstraintError(grammar.status());
  // vLLM: with a reasoning parser the constraint waits for the end of the thinking channel
  // (chat requests; a raw completion prompt has no channel, so it is constrained at once).
  bool gated = in.chat && !ctx.options.reasoning_parser.empty() && !so.config().enable_in_reasoning;
  std::vector<int32_t> prompt;
  if (gated) prompt.assign(in.prompt_ids.begin(), in.prompt_ids.end());
  std::shared_ptr<const constrain::CompiledGrammar> compiled = std::move(*grammar);
  *out = [compiled, gated, prompt = std::move(prompt)]() -> std::unique_ptr<sample::TokenConstraint> {
    return std::make_unique<MatcherConstraint>(compiled, gated, prompt);
  };
  return std::nullopt;
}

}  // namespace gemmad::api
