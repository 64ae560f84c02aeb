// OutputParser: the per-choice pipeline the server runs on generated text, vLLM's
// DelegatingParser: optional reasoning parser -> optional tool-call parser. Both modes share
// one path: the one-shot result is Feed(all text) + Finish(), so streaming and non-streaming
// answers always agree (for every way of cutting the text into pieces).
//
// Server contract: when either parser is configured, detokenize with skip_special_tokens=false
// and feed the text exactly as detokenized (markers included, stop token excluded); send the
// returned deltas to the client (they contain no protocol markers). With neither parser the
// text passes through unchanged as content (then detokenize with special tokens skipped).
// tool_choice "none": build the parser without a tool-call parser (tool syntax is then plain
// content with markers removed, in both modes). tool_choice "required"/named are constrained
// by the grammar engine (src/constrain) and still parsed here.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parse/delta.h"
#include "parse/reasoning/reasoning_parser.h"
#include "parse/tool_call/tool_call_parser.h"

namespace gemmad::parse {

struct OutputParserConfig {
  std::string reasoning_parser;  // --reasoning-parser; "" = none
  std::string tool_call_parser;  // --tool-call-parser; "" = none (or tool_choice "none")
  ReasoningOptions reasoning;    // keep_markers_in_content is set automatically
  ToolCallOptions tool_calls;
  // Request include_reasoning: false drops reasoning in both modes (vLLM drops it only in
  // non-streaming responses).
  bool include_reasoning = true;
};

class OutputParser {
 public:
  // Either parser may be null.
  OutputParser(std::unique_ptr<ReasoningParser> reasoning, std::unique_ptr<ToolCallParser> tools,
               bool include_reasoning = true);

  std::vector<Delta> Feed(std::string_view text);
  std::vector<Delta> Finish();
  // The message assembled from every delta returned so far (complete after Finish()).
  ParsedMessage message() const;
  // Number of tool calls reported so far (finish_reason "tool_calls" when > 0 for auto).
  int num_tool_calls() const { return num_tool_calls_; }

 private:
  std::vector<Delta> Route(std::vector<Delta> from_reasoning);
  void Record(std::vector<Delta>& out, std::vector<Delta> deltas);

  std::unique_ptr<ReasoningParser> reasoning_;
  std::unique_ptr<ToolCallParser> tools_;
  bool include_reasoning_;
  bool finished_ = false;
  int num_tool_calls_ = 0;
  MessageAssembler assembler_;
};

// Builds an OutputParser from parser names; unknown names are kInvalidArgument listing the
// known ones.
Result<std::unique_ptr<OutputParser>> MakeOutputParser(const OutputParserConfig& config);

// Non-streaming convenience: MakeOutputParser + Feed(text) + Finish() + message().
Result<ParsedMessage> ParseOutput(const OutputParserConfig& config, std::string_view text);

}  // namespace gemmad::parse
