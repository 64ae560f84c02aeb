// Gemma4ReasoningParser: `<|channel>thought\n…<channel|>` -> reasoning (chat-format.md §7),
// streaming-first. Differences from vLLM, all deliberate (docs/tool-calling.md):
//  * the same rules in both modes (text before a channel stays content; a `<channel|>` with no
//    open channel is dropped and the text before it stays content);
//  * channels are parsed wherever they appear, whatever the prompt said (thinking off, after
//    tool results): thinking never leaks into content;
//  * `<|tool_call>` inside an open channel closes it (the model went straight to a call);
//  * no protocol marker ever reaches reasoning (or content, unless keep_markers_in_content).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parse/delta_emitter.h"
#include "parse/gemma4/markers.h"
#include "parse/reasoning/reasoning_parser.h"

namespace gemmad::parse {

class Gemma4ReasoningParser final : public ReasoningParser {
 public:
  explicit Gemma4ReasoningParser(const ReasoningOptions& options);
  std::vector<Delta> Feed(std::string_view text) override;
  std::vector<Delta> Finish() override;

 private:
  enum class State { kOutside, kLabel, kInside };
  void Process(const gemma4::Piece& piece, DeltaEmitter& emit);
  void ProcessLabelText(std::string_view text, DeltaEmitter& emit);
  void ResolveLabel(DeltaEmitter& emit);
  void OutsideMarker(gemma4::Marker marker, DeltaEmitter& emit);
  // Output goes through the marker filters; switching kinds flushes the other one.
  void EmitReasoning(std::string_view text, DeltaEmitter& emit, bool keep_empty = false);
  void EmitContent(std::string_view text, DeltaEmitter& emit);
  void FlushFilters(DeltaEmitter& emit);

  ReasoningOptions options_;
  gemma4::MarkerScanner scanner_;
  gemma4::MarkerFilter reasoning_filter_;
  gemma4::MarkerFilter content_filter_;
  State state_ = State::kOutside;
  std::string label_;  // text after <|channel> while it may still be the "thought\n" label
  bool finished_ = false;
};

}  // namespace gemmad::parse
