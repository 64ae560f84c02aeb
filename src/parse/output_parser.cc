// OutputParser (output_parser.h): reasoning parser -> tool-call parser, with message assembly.
#include "parse/output_parser.h"

#include "base/check.h"

namespace gemmad::parse {

OutputParser::OutputParser(std::unique_ptr<ReasoningParser> reasoning,
                           std::unique_ptr<ToolCallParser> tools, bool include_reasoning)
    : reasoning_(std::move(reasoning)), tools_(std::move(tools)),
      include_reasoning_(include_reasoning) {}

void OutputParser::Record(std::vector<Delta>& out, std::vector<Delta> deltas) {
  for (auto& d : deltas) {
    if (d.reasoning && !include_reasoning_) continue;
    for (const auto& tc : d.tool_calls) {
      if (tc.id) ++num_tool_calls_;
    }
    assembler_.Add(d);
    out.push_back(std::move(d));
  }
}

std::vector<Delta> OutputParser::Route(std::vector<Delta> from_reasoning) {
  std::vector<Delta> out;
  for (auto& d : from_reasoning) {
    if (d.content && tools_) {
      Record(out, tools_->Feed(*d.content));
    } else {
      Record(out, {std::move(d)});
    }
  }
  return out;
}

std::vector<Delta> OutputParser::Feed(std::string_view text) {
  GEMMAD_CHECK(!finished_, "OutputParser::Feed after Finish");
  if (reasoning_) return Route(reasoning_->Feed(text));
  std::vector<Delta> out;
  if (tools_) {
    Record(out, tools_->Feed(text));
  } else if (!text.empty()) {
    Record(out, {Delta::Content(std::string(text))});
  }
  return out;
}

std::vector<Delta> OutputParser::Finish() {
  GEMMAD_CHECK(!finished_, "OutputParser::Finish called twice");
  finished_ = true;
  std::vector<Delta> out;
  if (reasoning_) out = Route(reasoning_->Finish());
  if (tools_) {
    Record(out, tools_->Finish());
    for (int index : tools_->IncompleteCalls()) assembler_.MarkIncomplete(index);
  }
  return out;
}

ParsedMessage OutputParser::message() const { return assembler_.Build(); }

Result<std::unique_ptr<OutputParser>> MakeOutputParser(const OutputParserConfig& config) {
  std::unique_ptr<ReasoningParser> reasoning;
  std::unique_ptr<ToolCallParser> tools;
  if (!config.reasoning_parser.empty()) {
    ReasoningOptions options = config.reasoning;
    options.keep_markers_in_content = !config.tool_call_parser.empty();
    GEMMAD_ASSIGN_OR_RETURN(reasoning, MakeReasoningParser(config.reasoning_parser, options));
  }
  if (!config.tool_call_parser.empty()) {
    GEMMAD_ASSIGN_OR_RETURN(tools, MakeToolCallParser(config.tool_call_parser, config.tool_calls));
  }
  return std::make_unique<OutputParser>(std::move(reasoning), std::move(tools),
                                        config.include_reasoning);
}

Result<ParsedMessage> ParseOutput(const OutputParserConfig& config, std::string_view text) {
  GEMMAD_ASSIGN_OR_RETURN(auto parser, MakeOutputParser(config));
  parser->Feed(text);
  parser->Finish();
  return parser->message();
}

}  // namespace gemmad::parse
