// Gemma4ReasoningParser (gemma4_reasoning.h).
#include "parse/reasoning/gemma4_reasoning.h"

#include "base/check.h"

namespace gemmad::parse {
namespace {

using gemma4::Marker;
constexpr std::string_view kLabel = "thought\n";

}  // namespace

Gemma4ReasoningParser::Gemma4ReasoningParser(const ReasoningOptions& options)
    : options_(options), state_(options.prompt_in_reasoning ? State::kLabel : State::kOutside) {}

std::vector<Delta> Gemma4ReasoningParser::Feed(std::string_view text) {
  GEMMAD_CHECK(!finished_, "ReasoningParser::Feed after Finish");
  std::vector<gemma4::Piece> pieces;
  scanner_.Feed(text, pieces);
  std::vector<Delta> out;
  DeltaEmitter emit(out);
  for (const auto& p : pieces) Process(p, emit);
  return out;
}

std::vector<Delta> Gemma4ReasoningParser::Finish() {
  GEMMAD_CHECK(!finished_, "ReasoningParser::Finish called twice");
  finished_ = true;
  std::vector<gemma4::Piece> pieces;
  scanner_.Finish(pieces);
  std::vector<Delta> out;
  DeltaEmitter emit(out);
  for (const auto& p : pieces) Process(p, emit);
  if (state_ == State::kLabel) ResolveLabel(emit);  // output ended inside the label
  FlushFilters(emit);
  return out;
}

void Gemma4ReasoningParser::Process(const gemma4::Piece& piece, DeltaEmitter& emit) {
  if (state_ == State::kLabel) {
    if (piece.marker == Marker::kNone) {
      ProcessLabelText(piece.text, emit);
      return;
    }
    ResolveLabel(emit);  // a marker ends the label whatever it held
  }
  if (state_ == State::kInside) {
    switch (piece.marker) {
      case Marker::kNone:
        EmitReasoning(piece.text, emit);
        return;
      case Marker::kChannelEnd:
        state_ = State::kOutside;
        return;
      case Marker::kToolCallStart:
        state_ = State::kOutside;  // straight to a tool call: the channel is over
        OutsideMarker(piece.marker, emit);
        return;
      default:
        return;  // no marker inside reasoning
    }
  }
  if (piece.marker == Marker::kNone) {
    EmitContent(piece.text, emit);
  } else {
    OutsideMarker(piece.marker, emit);
  }
}

void Gemma4ReasoningParser::OutsideMarker(Marker marker, DeltaEmitter& emit) {
  if (marker == Marker::kChannelStart) {
    state_ = State::kLabel;
    label_.clear();
    return;
  }
  if (marker == Marker::kChannelEnd) return;  // stray close: dropped
  if (options_.keep_markers_in_content) EmitContent(gemma4::MarkerText(marker), emit);
}

void Gemma4ReasoningParser::EmitReasoning(std::string_view text, DeltaEmitter& emit,
                                          bool keep_empty) {
  std::string s;
  content_filter_.Flush(s);
  emit.Content(s);
  s.clear();
  reasoning_filter_.Push(text, s);
  emit.Reasoning(s, keep_empty);
}

void Gemma4ReasoningParser::EmitContent(std::string_view text, DeltaEmitter& emit) {
  std::string s;
  reasoning_filter_.Flush(s);
  emit.Reasoning(s);
  s.clear();
  if (options_.keep_markers_in_content) {
    emit.Content(text);  // raw for the tool-call parser, which filters it
    return;
  }
  content_filter_.Push(text, s);
  emit.Content(s);
}

void Gemma4ReasoningParser::FlushFilters(DeltaEmitter& emit) {
  std::string s;
  reasoning_filter_.Flush(s);
  emit.Reasoning(s);
  s.clear();
  content_filter_.Flush(s);
  emit.Content(s);
}

void Gemma4ReasoningParser::ProcessLabelText(std::string_view text, DeltaEmitter& emit) {
  label_.append(text);
  if (label_.size() >= kLabel.size() && label_.compare(0, kLabel.size(), kLabel) == 0) {
    state_ = State::kInside;
    // vLLM sends {"reasoning":""} when the label completes with nothing after it.
    EmitReasoning(std::string_view(label_).substr(kLabel.size()), emit, /*keep_empty=*/true);
    label_.clear();
    return;
  }
  if (label_.size() < kLabel.size() && kLabel.compare(0, label_.size(), label_) == 0) return;
  ResolveLabel(emit);  // diverged ("thousand"): the held text is reasoning
}

void Gemma4ReasoningParser::ResolveLabel(DeltaEmitter& emit) {
  state_ = State::kInside;
  // Always one reasoning delta per channel, so an empty channel still yields reasoning "".
  EmitReasoning(label_, emit, /*keep_empty=*/true);
  label_.clear();
}

}  // namespace gemmad::parse
