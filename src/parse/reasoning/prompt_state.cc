// Where the prompt leaves the model with respect to thinking (reasoning_parser.h):
// PromptEndsInsideReasoning over rendered text, Gemma4ReasoningEnded over token ids.
#include <string_view>

#include "parse/reasoning/reasoning_parser.h"

namespace gemmad::parse {

bool PromptEndsInsideReasoning(std::string_view rendered_prompt) {
  const size_t open = rendered_prompt.rfind("<|channel>");
  if (open == std::string_view::npos) return false;
  const std::string_view after = rendered_prompt.substr(open);
  for (std::string_view closer :
       {"<channel|>", "<|turn>", "<turn|>", "<|tool_call>", "<|tool_response>"}) {
    if (after.find(closer) != std::string_view::npos) return false;
  }
  return true;
}

bool Gemma4ReasoningEnded(std::span<const int32_t> token_ids, const Gemma4ReasoningIds& ids) {
  bool saw_tool_response_end = false;
  for (size_t k = token_ids.size(); k-- > 0;) {
    const int32_t t = token_ids[k];
    if (t == ids.channel_start) return false;
    if (t == ids.tool_call_start) return true;
    if (t == ids.turn_start) return false;
    if (t == ids.tool_response_end) {
      saw_tool_response_end = true;
    } else if (t == ids.tool_response_start) {
      if (saw_tool_response_end) return false;
    } else if (t == ids.channel_end) {
      return true;
    }
  }
  return false;
}

}  // namespace gemmad::parse
