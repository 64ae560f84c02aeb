// ChatOutput: the parsing stage of one chat choice, after detokenisation and stop strings:
// the gemma4 reasoning / tool-call parsers of src/parse when the server and request enable
// them, else vLLM's plain behaviour (every step's text is content, even ""). One engine step
// gives at most one delta (the step's parser deltas coalesced), as vLLM sends one chunk per step.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_error.h"
#include "parse/delta.h"
#include "parse/output_parser.h"

namespace gemmad::api {

struct ChatRequest;
struct ServingContext;

class ChatOutput {
 public:
  // `prompt_text` is the rendered prompt (a prompt that ends inside an open thinking channel
  // makes the output start as reasoning).
  static std::optional<ApiError> Make(const ServingContext& ctx, const ChatRequest& request,
                                      const std::string& prompt_text, std::unique_ptr<ChatOutput>* out);

  // Text of one engine step; nullopt when a parser held all of it back.
  std::optional<parse::Delta> Step(std::string_view text, bool finished);
  // The same step as parser deltas with one member each, in model-text order (neighbours of one
  // kind merged, empty text dropped): the Responses stream opens an item per kind.
  std::vector<parse::Delta> StepDeltas(std::string_view text, bool finished);
  // The non-streaming message of the whole text (call once, instead of Step).
  parse::ParsedMessage Full(std::string_view text);

  bool parsing() const { return parser_ != nullptr; }  // special tokens must stay in the text
  int num_tool_calls() const { return parser_ ? parser_->num_tool_calls() : 0; }

 private:
  std::unique_ptr<parse::OutputParser> parser_;  // null: plain content
  bool reasoning_parser_ = false;
};

}  // namespace gemmad::api
