// DeltaEmitter: appends text to a delta list, merging it into the last delta when that one is
// of the same kind, so that one Feed() returns as few deltas as possible.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parse/delta.h"

namespace gemmad::parse {

class DeltaEmitter {
 public:
  explicit DeltaEmitter(std::vector<Delta>& out) : out_(out) {}
  // Empty text is dropped.
  void Content(std::string_view text);
  // Empty text is kept only when `keep_empty` (the vLLM {"reasoning":""} event).
  void Reasoning(std::string_view text, bool keep_empty = false);
  // A call's first delta (id, name, arguments "").
  void ToolCallStart(int index, std::string id, std::string name);
  // An argument fragment; merged into the previous delta when that is a fragment of the same
  // call (never into the call's first delta, which keeps arguments "" as vLLM sends it).
  void ToolCallArguments(int index, std::string_view fragment);

 private:
  std::vector<Delta>& out_;
};

}  // namespace gemmad::parse
