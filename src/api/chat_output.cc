// ChatOutput (see chat_output.h).
#include "api/chat_output.h"

#include "api/chat_request.h"
#include "api/serving_context.h"
#include "parse/gemma4/markers.h"

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

bool MentionsChannel(std::string_view text) {
  using parse::gemma4::Marker;
  using parse::gemma4::MarkerText;
  return text.find(MarkerText(Marker::kChannelStart)) != std::string_view::npos ||
         text.find(MarkerText(Marker::kChannelEnd)) != std::string_view::npos;
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
  result->reasoning_parser_ = !config.reasoning_parser.empty();
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
  if (!parser_) {
    // vLLM without parsers: content is the text, "" included.
    parse::ParsedMessage m;
    m.content = std::string(text);
    return m;
  }
  parser_->Feed(text);
  parser_->Finish();
  parse::ParsedMessage m = parser_->message();
  // vLLM's non-streaming content is the parsers' text, "" included: it is null only when tool
  // calls were parsed (content strip()ped) or when the gemma4 reasoning parser saw a channel
  // marker and nothing followed the channel (its extract_reasoning returns None then). An answer
  // of special tokens only (say the stop token alone) is thus "".
  if (!m.content && m.tool_calls.empty() && !(reasoning_parser_ && MentionsChannel(text))) m.content = "";
  return m;
}

}  // namespace gemmad::api
