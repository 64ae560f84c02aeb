// Gemma4ToolCallParser (gemma4_tool_call.h).
#include "parse/tool_call/gemma4_tool_call.h"

#include <random>

#include "base/check.h"

namespace gemmad::parse {
namespace {

using gemma4::Marker;
constexpr std::string_view kCallPrefix = "call:";
constexpr size_t kMaxHeaderBytes = 512;  // longer "names" are not a call header

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
// vLLM accepts [\w.-]+; non-ASCII bytes stand in for Unicode word characters.
bool IsNameChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || u >= 0x80;
}

uint64_t RandomSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

Gemma4ToolCallParser::Gemma4ToolCallParser(const ToolCallOptions& options)
    : options_(options), ids_(options.make_id ? 0 : RandomSeed()) {}

std::vector<Delta> Gemma4ToolCallParser::Feed(std::string_view text) {
  GEMMAD_CHECK(!finished_, "ToolCallParser::Feed after Finish");
  std::vector<gemma4::Piece> pieces;
  scanner_.Feed(text, pieces);
  std::vector<Delta> out;
  DeltaEmitter emit(out);
  Run(pieces, emit);
  return out;
}

std::vector<Delta> Gemma4ToolCallParser::Finish() {
  GEMMAD_CHECK(!finished_, "ToolCallParser::Finish called twice");
  finished_ = true;
  std::vector<gemma4::Piece> pieces;
  scanner_.Finish(pieces);
  std::vector<Delta> out;
  DeltaEmitter emit(out);
  Run(pieces, emit);
  switch (state_) {
    case State::kHeader:
      AbandonHeader(emit);
      break;
    case State::kArgs:
      if (args_.close_pending()) {  // `…}` then the end: closed, only the end marker missing
        args_.Close(json_);
        ArgsOut(emit);
      } else if (current_reported_) {
        incomplete_.push_back(current_);
      }
      EndArgs(emit);
      break;
    case State::kText:
      break;
  }
  FlushContent(emit);
  state_ = State::kText;
  return out;
}

void Gemma4ToolCallParser::Run(const std::vector<gemma4::Piece>& pieces, DeltaEmitter& emit) {
  for (const auto& p : pieces) {
    if (p.marker == Marker::kNone) {
      OnText(p.text, emit);
    } else {
      OnMarker(p.marker, emit);
    }
  }
}

void Gemma4ToolCallParser::OnText(std::string_view text, DeltaEmitter& emit) {
  while (!text.empty()) {
    switch (state_) {
      case State::kText:
        EmitContent(text, emit);
        return;
      case State::kHeader:
        text.remove_prefix(HeaderText(text, emit));
        break;
      case State::kArgs:
        args_.Text(text, json_);
        ArgsOut(emit);
        return;
    }
  }
}

void Gemma4ToolCallParser::OnMarker(Marker marker, DeltaEmitter& emit) {
  switch (state_) {
    case State::kHeader:
      AbandonHeader(emit);
      break;
    case State::kArgs:
      if (marker == Marker::kQuote) {
        args_.Quote(json_);
        ArgsOut(emit);
        return;
      }
      // The end marker or a new call ends the call; any other marker ends it only after its
      // closing '}' (inside the arguments it is dropped).
      if (marker != Marker::kToolCallEnd && marker != Marker::kToolCallStart &&
          !args_.close_pending()) {
        return;
      }
      args_.Close(json_);
      ArgsOut(emit);
      EndArgs(emit);
      state_ = State::kText;
      if (marker == Marker::kToolCallEnd) return;
      break;
    case State::kText:
      break;
  }
  if (marker == Marker::kToolCallStart) StartHeader();
  // Every other marker outside a call is protocol, never content: dropped.
}

void Gemma4ToolCallParser::StartHeader() {
  state_ = State::kHeader;
  phase_ = HeaderPhase::kLead;
  prefix_matched_ = 0;
  header_.clear();
  name_.clear();
}

void Gemma4ToolCallParser::AbandonHeader(DeltaEmitter& emit) {
  EmitContent(header_, emit);
  header_.clear();
  state_ = State::kText;
}

size_t Gemma4ToolCallParser::HeaderText(std::string_view text, DeltaEmitter& emit) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    bool ok = true;
    switch (phase_) {
      case HeaderPhase::kLead:
        if (IsSpace(c)) break;
        phase_ = HeaderPhase::kPrefix;
        [[fallthrough]];
      case HeaderPhase::kPrefix:
        ok = c == kCallPrefix[prefix_matched_];
        if (ok && ++prefix_matched_ == kCallPrefix.size()) phase_ = HeaderPhase::kNameLead;
        break;
      case HeaderPhase::kNameLead:
        if (IsSpace(c)) break;
        ok = IsNameChar(c);
        if (ok) {
          name_ += c;
          phase_ = HeaderPhase::kName;
        }
        break;
      case HeaderPhase::kName:
        if (c == '{') {
          Commit(emit);
          return i + 1;
        }
        if (IsSpace(c)) {
          phase_ = HeaderPhase::kNameTrail;
        } else {
          ok = IsNameChar(c);
          if (ok) name_ += c;
        }
        break;
      case HeaderPhase::kNameTrail:
        if (c == '{') {
          Commit(emit);
          return i + 1;
        }
        ok = IsSpace(c);
        break;
    }
    if (!ok || header_.size() >= kMaxHeaderBytes) {
      AbandonHeader(emit);  // `text[i..]` is then plain content
      return i;
    }
    header_ += c;
  }
  return text.size();
}

void Gemma4ToolCallParser::Commit(DeltaEmitter& emit) {
  current_ = num_calls_++;
  current_reported_ = options_.parallel_tool_calls || current_ == 0;
  header_.clear();
  if (current_reported_) {
    FlushContent(emit);  // content must not be held across the call's deltas
    emit.ToolCallStart(current_, options_.make_id ? options_.make_id() : ids_.Next(), name_);
  }
  args_.Begin(json_);
  ArgsOut(emit);
  state_ = State::kArgs;
}

void Gemma4ToolCallParser::ArgsOut(DeltaEmitter& emit) {
  std::string s;
  args_filter_.Push(json_, s);
  json_.clear();
  if (current_reported_) emit.ToolCallArguments(current_, s);
}

void Gemma4ToolCallParser::EndArgs(DeltaEmitter& emit) {
  std::string s;
  args_filter_.Flush(s);
  if (current_reported_) emit.ToolCallArguments(current_, s);
}

void Gemma4ToolCallParser::EmitContent(std::string_view text, DeltaEmitter& emit) {
  std::string s;
  content_filter_.Push(text, s);
  emit.Content(s);
}

void Gemma4ToolCallParser::FlushContent(DeltaEmitter& emit) {
  std::string s;
  content_filter_.Flush(s);
  emit.Content(s);
}

}  // namespace gemmad::parse
