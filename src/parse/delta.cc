// Delta helpers and message assembly (delta.h).
#include "parse/delta.h"

#include "parse/text_util.h"

namespace gemmad::parse {

Delta Delta::Reasoning(std::string text) {
  Delta d;
  d.reasoning = std::move(text);
  return d;
}

Delta Delta::Content(std::string text) {
  Delta d;
  d.content = std::move(text);
  return d;
}

Delta Delta::ToolCall(ToolCallDelta call) {
  Delta d;
  d.tool_calls.push_back(std::move(call));
  return d;
}

void MessageAssembler::Add(const Delta& delta) {
  if (delta.reasoning) {
    saw_reasoning_ = true;
    reasoning_ += *delta.reasoning;
  }
  if (delta.content) content_ += *delta.content;
  for (const auto& tc : delta.tool_calls) {
    if (tc.index < 0) continue;
    if (static_cast<size_t>(tc.index) >= calls_.size()) {
      calls_.resize(static_cast<size_t>(tc.index) + 1);
    }
    parse::ToolCall& call = calls_[static_cast<size_t>(tc.index)];
    if (tc.id) call.id = *tc.id;
    if (tc.name) call.name = *tc.name;
    call.arguments += tc.arguments;
  }
}

void MessageAssembler::Add(const std::vector<Delta>& deltas) {
  for (const auto& d : deltas) Add(d);
}

void MessageAssembler::MarkIncomplete(int index) {
  if (index >= 0 && static_cast<size_t>(index) < calls_.size()) {
    calls_[static_cast<size_t>(index)].complete = false;
  }
}

ParsedMessage MessageAssembler::Build() const {
  ParsedMessage m;
  if (saw_reasoning_) m.reasoning = reasoning_;
  m.tool_calls = calls_;
  std::string_view content = content_;
  if (!calls_.empty()) content = PyStrip(content);
  if (!content.empty()) m.content = std::string(content);
  return m;
}

ParsedMessage AssembleMessage(const std::vector<Delta>& deltas) {
  MessageAssembler a;
  a.Add(deltas);
  return a.Build();
}

std::vector<Delta> CoalesceDeltas(const std::vector<Delta>& deltas) {
  std::vector<Delta> out;
  auto push_text = [&out](bool reasoning, const std::string& text) {
    if (text.empty()) return;
    Delta* last = out.empty() ? nullptr : &out.back();
    std::optional<std::string>* slot =
        last ? (reasoning ? &last->reasoning : &last->content) : nullptr;
    if (slot && *slot && !(reasoning ? last->content : last->reasoning) &&
        last->tool_calls.empty()) {
      **slot += text;
    } else {
      out.push_back(reasoning ? Delta::Reasoning(text) : Delta::Content(text));
    }
  };
  for (const auto& d : deltas) {
    if (d.reasoning) push_text(true, *d.reasoning);
    if (d.content) push_text(false, *d.content);
    for (const auto& tc : d.tool_calls) {
      Delta* last = out.empty() ? nullptr : &out.back();
      if (last && last->tool_calls.size() == 1 && last->tool_calls[0].index == tc.index &&
          !tc.id && !tc.name) {
        last->tool_calls[0].arguments += tc.arguments;
      } else if (tc.id || tc.name || !tc.arguments.empty()) {
        out.push_back(Delta::ToolCall(tc));
      }
    }
  }
  return out;
}

}  // namespace gemmad::parse
