// ReasoningParser: separates the model's thinking from its answer, streaming-first, plus the
// registry of formats by `--reasoning-parser` name ("gemma4").
//
// Input contract (all parsers in parse/): the detokenized model output with special tokens
// NOT skipped (skip_special_tokens=false), so protocol markers such as `<|channel>` appear as
// their literal strings; text pieces may be cut anywhere, even inside a marker or a UTF-8
// character (held back until decidable). Stop tokens that ended generation are not in the text.
// Output: Delta events (delta.h) with `reasoning` or `content`; reasoning text never contains
// protocol markers. Content is handed on raw (markers other than the channel's kept) when
// ReasoningOptions::keep_markers_in_content is set, so a ToolCallParser can run after it;
// otherwise every protocol marker is removed from it too. Malformed output never fails: it
// degrades to content. Thread-compatible; one parser per choice of one request.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parse/delta.h"

namespace gemmad::parse {

struct ReasoningOptions {
  // True when the rendered prompt already opened the thinking channel (it ends inside an open
  // `<|channel>`, e.g. continue_final_message on a thought): output starts as reasoning. Compute
  // it with PromptEndsInsideReasoning(). `enable_thinking` itself needs no flag: with the
  // Gemma 4 template it only changes the prompt (thinking off closes an empty channel there).
  bool prompt_in_reasoning = false;
  // Keep protocol markers other than the channel's in `content` (set by OutputParser when a
  // ToolCallParser follows). Never set it when content goes to a client directly.
  bool keep_markers_in_content = false;
};

class ReasoningParser {
 public:
  virtual ~ReasoningParser() = default;
  // Feeds the next piece of model text; returns the deltas it completes (possibly none).
  virtual std::vector<Delta> Feed(std::string_view text) = 0;
  // End of output (stop, length, abort): returns the deltas for any held-back text. After
  // Finish the parser accepts no more input.
  virtual std::vector<Delta> Finish() = 0;
};

// One-shot form: Feed(text) + Finish(), assembled (delta.h).
ParsedMessage ParseReasoning(ReasoningParser& parser, std::string_view text);

// Creates the parser registered under `name`; an unknown name is kInvalidArgument listing the
// known ones.
Result<std::unique_ptr<ReasoningParser>> MakeReasoningParser(std::string_view name,
                                                             const ReasoningOptions& options);
std::vector<std::string> ReasoningParserNames();

// Gemma 4: true when `rendered_prompt` (the chat template's output) ends inside an open
// thinking channel, i.e. its last `<|channel>` is not followed by `<channel|>`, `<|turn>`,
// `<turn|>`, `<|tool_call>` or `<|tool_response>`.
bool PromptEndsInsideReasoning(std::string_view rendered_prompt);

// Gemma 4 marker token ids used by the id-level check below (chat-format.md §1.2).
struct Gemma4ReasoningIds {
  int32_t channel_start = 100;      // <|channel>
  int32_t channel_end = 101;        // <channel|>
  int32_t turn_start = 105;         // <|turn>
  int32_t tool_call_start = 48;     // <|tool_call>
  int32_t tool_response_start = 50; // <|tool_response>
  int32_t tool_response_end = 51;   // <tool_response|>
};

// vLLM's Gemma4ReasoningParser.is_reasoning_end over token ids (chat-format.md §7.1): scanning
// backwards, <|channel> -> false, <|tool_call> -> true, <|turn> -> false, <channel|> -> true,
// <|tool_response> -> false if a <tool_response|> was passed on the way, else keep scanning;
// start of input -> false. Used to decide when structured-output constraints start.
bool Gemma4ReasoningEnded(std::span<const int32_t> token_ids, const Gemma4ReasoningIds& ids = {});

}  // namespace gemmad::parse
