// DeltaEmitter (delta_emitter.h).
#include "parse/delta_emitter.h"

namespace gemmad::parse {

void DeltaEmitter::Content(std::string_view text) {
  if (text.empty()) return;
  if (!out_.empty() && out_.back().content) {
    *out_.back().content += text;
  } else {
    out_.push_back(Delta::Content(std::string(text)));
  }
}

void DeltaEmitter::Reasoning(std::string_view text, bool keep_empty) {
  if (text.empty() && !keep_empty) return;
  if (!out_.empty() && out_.back().reasoning) {
    *out_.back().reasoning += text;
  } else {
    out_.push_back(Delta::Reasoning(std::string(text)));
  }
}

void DeltaEmitter::ToolCallStart(int index, std::string id, std::string name) {
  ToolCallDelta d;
  d.index = index;
  d.id = std::move(id);
  d.name = std::move(name);
  out_.push_back(Delta::ToolCall(std::move(d)));
}

void DeltaEmitter::ToolCallArguments(int index, std::string_view fragment) {
  if (fragment.empty()) return;
  if (!out_.empty() && out_.back().tool_calls.size() == 1 &&
      out_.back().tool_calls[0].index == index && !out_.back().tool_calls[0].id) {
    out_.back().tool_calls[0].arguments += fragment;
    return;
  }
  ToolCallDelta d;
  d.index = index;
  d.arguments = std::string(fragment);
  out_.push_back(Delta::ToolCall(std::move(d)));
}

}  // namespace gemmad::parse
