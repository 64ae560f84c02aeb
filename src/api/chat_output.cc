// ChatOutput (see chat_output.h).
#include "api/chat_output.h"

#include "api/chat_request.h"
#include "api/serving_context.h"

namespace gemmad::api {
namespace {

// One delta for a whole engine step: reasoning, content and tool-call entries concatenated
// in order (parse::CoalesceDeltas merges neighbours of one kind).
parse::Delta Merge(const std::vector<parse::Delta>& deltas) {
  parse::Delta out;
  for (const parse::Delta& d : parse::CoalesceDeltas(deltas)) {
    if (d.reasoning) out.reasoning = out.reasoning.value_or("") + *d.reasoning;
    if (d.content) out.content = out.content.value_or("") + *d.content;
    out.tool_calls.insert(out.tool_calls.end(), d.tool_calls.begin(), d.tool_calls.end());
  }
  return out;
}

}  // namespace

std::optional<ApiError> ChatOutput::Make(const ServingContext& ctx, const ChatRequest& request,
                                         const std::string& prompt_text, std::unique_ptr<ChatOutput>* out) {
  const ServingOptions& o = ctx.options;
  parse::OutputParserConfig config;
  config.reasoning_parser = o.reasoning_parser;
  bool tools_active = request.tools.is_array() && request.tool_choice != ToolChoiceKind::kNone &&
                      (o.enable_auto_tool_choice || request.tool_choice == ToolChoiceKind::kRequired ||
                       request.tool_choice == ToolChoiceKind::kNamed);
  if (tools_active) config.tool_call_parser = o.tool_call_parser;
  config.reasoning.prompt_in_reasoning =
      !config.reasoning_parser.empty() && parse::PromptEndsInsideReasoning(prompt_text);
  config.tool_calls.parallel_tool_calls = request.parallel_tool_calls;
  config.include_reasoning = request.include_reasoning;
  auto result = std::make_unique<ChatOutput>();
  if (!config.reasoning_parser.empty() || !config.tool_call_parser.empty()) {
    auto parser = parse::MakeOutputParser(config);
    if (!parser.ok()) return ApiError::Internal(parser.status().message());
    result->parser_ = std::move(*parser);
  }
  *out = std::move(result);
  return std::nullopt;
}

std::optional<parse::Delta> ChatOutput::Step(std::string_view text, bool finished) {
  if (!parser_) return parse::Delta::Content(std::string(text));
  std::vector<parse::Delta> deltas = parser_->Feed(text);
  if (finished) {
    std::vector<parse::Delta> rest = parser_->Finish();
    deltas.insert(deltas.end(), rest.begin(), rest.end());
  }
  if (deltas.empty()) return std::nullopt;
  return Merge(deltas);
}

std::vector<parse::Delta> ChatOutput::StepDeltas(std::string_view text, bool finished) {
  if (!parser_) {
    if (text.empty()) return {};
    return {parse::Delta::Content(std::string(text))};
  }
  std::vector<parse::Delta> deltas = parser_->Feed(text);
  if (finished) {
    std::vector<parse::Delta> rest = parser_->Finish();
    deltas.insert(deltas.end(), rest.begin(), rest.end());
  }
  return parse::CoalesceDeltas(deltas);
}

parse::ParsedMessage ChatOutput::Full(std::string_view text) {
  parse::ParsedMessage m;
  if (!parser_) {
    // vLLM without parsers: content is the text, "" included.
    m.content = std::string(text);
    return m;
  }
  parser_->Feed(text);
  parser_->Finish();
  return parser_->message();
}

}  // namespace gemmad::api
