// Gemma4ToolCallParser: `<|tool_call>call:NAME{ARGS}<tool_call|>` -> OpenAI tool_calls
// (chat-format.md §5.2, §6), streaming-first. A call is committed — its first delta {index, id,
// name} sent — as soon as `call:NAME{` is complete; arguments then stream through
// Gemma4ArgsConverter. Text that does not form a call header degrades to content. Deliberate
// differences from vLLM (docs/tool-calling.md): identical results in both modes (text between
// and after calls is content); a call is ended by `<tool_call|>`, by a new `<|tool_call>` or by
// any other marker after its closing `}` (arguments then closed into valid JSON); no protocol
// marker ever reaches content.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "parse/delta_emitter.h"
#include "parse/gemma4/markers.h"
#include "parse/tool_call/gemma4_args.h"
#include "parse/tool_call/tool_call_parser.h"

namespace gemmad::parse {

class Gemma4ToolCallParser final : public ToolCallParser {
 public:
  explicit Gemma4ToolCallParser(const ToolCallOptions& options);
  std::vector<Delta> Feed(std::string_view text) override;
  std::vector<Delta> Finish() override;
  std::vector<int> IncompleteCalls() const override { return incomplete_; }

 private:
  enum class State { kText, kHeader, kArgs };
  enum class HeaderPhase { kLead, kPrefix, kNameLead, kName, kNameTrail };

  void Run(const std::vector<gemma4::Piece>& pieces, DeltaEmitter& emit);
  void OnText(std::string_view text, DeltaEmitter& emit);
  void OnMarker(gemma4::Marker marker, DeltaEmitter& emit);
  // Consumes header text; returns bytes consumed (stops after '{' or at a violation).
  size_t HeaderText(std::string_view text, DeltaEmitter& emit);
  void StartHeader();
  void AbandonHeader(DeltaEmitter& emit);
  void Commit(DeltaEmitter& emit);
  void ArgsOut(DeltaEmitter& emit);
  void EndArgs(DeltaEmitter& emit);  // flushes the arguments filter
  // Content goes through content_filter_, flushed before any tool-call delta.
  void EmitContent(std::string_view text, DeltaEmitter& emit);
  void FlushContent(DeltaEmitter& emit);

  ToolCallOptions options_;
  ToolCallIdGenerator ids_;
  gemma4::MarkerScanner scanner_;
  gemma4::MarkerFilter content_filter_;
  gemma4::MarkerFilter args_filter_;
  State state_ = State::kText;
  HeaderPhase phase_ = HeaderPhase::kLead;
  size_t prefix_matched_ = 0;
  std::string header_;  // raw text since <|tool_call>, returned as content if it is no header
  std::string name_;
  Gemma4ArgsConverter args_;
  std::string json_;  // argument JSON produced by the current step
  int num_calls_ = 0;
  int current_ = -1;
  bool current_reported_ = false;
  bool finished_ = false;
  std::vector<int> incomplete_;
};

}  // namespace gemmad::parse
