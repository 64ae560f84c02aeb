// Fixtures for vLLM's test_gemma4_reasoning_parser.py (reasoning parser alone, as there). Each
// vLLM case exists in a non-streaming and a streaming variant; ours has one behaviour for both.
#include "fixtures.h"

namespace gemmad::parse::testing {

const std::vector<Fixture>& VllmReasoningFixtures() {
  const std::string O = "<|channel>", C = "<channel|>";
  static const std::vector<Fixture> kFixtures = {
      {"reasoning_end_without_start", "invalid_simple, invalid_simple_streaming",
       "kept vLLM streaming behaviour (content); vLLM non-streaming calls the text before "
       "`<channel|>` reasoning, which a stream cannot know in time. Use prompt_in_reasoning when "
       "the prompt opened the channel", ReasoningOnly(), {"Some thinking", C, "The answer"}, {},
       "Some thinkingThe answer", {}},
      {"reasoning_end_without_start_empty", "invalid_complete, invalid_complete_streaming",
       "kept vLLM streaming behaviour (see reasoning_end_without_start)", ReasoningOnly(),
       {"Some thinking", C}, {}, "Some thinking", {}},
      {"reasoning_prompt_opened_channel", "invalid_simple (non-streaming expectation)",
       "same as vLLM non-streaming when the prompt ended inside the channel",
       ParserSetup{.tools = false, .prompt_in_reasoning = true}, {"Some thinking", C, "The answer"},
       "Some thinking", "The answer", {}},
      {"reasoning_no_content", "no_content", "same", ReasoningOnly(), {O, "Only reasoning"},
       "Only reasoning", {}, {}},
      {"reasoning_absent", "no_reasoning", "same", ReasoningOnly(), {"Just an answer"}, {},
       "Just an answer", {}},
      {"reasoning_then_content", "reasoning, reasoning_streaming", "same", ReasoningOnly(),
       {O, "Weighing options", C, "Pick B"}, "Weighing options", "Pick B", {}},
      {"reasoning_complete_no_content", "complete_reasoning, complete_reasoning_streaming",
       "same", ReasoningOnly(), {O, "Weighing options", C}, "Weighing options", {}, {}},
      {"reasoning_multiline", "multiple_lines, multiple_lines_streaming", "same", ReasoningOnly(),
       {O, "one\ntwo", C, "three\nfour"}, "one\ntwo", "three\nfour", {}},
      {"reasoning_unclosed", "no_end, no_end_streaming; chat-format.md §7.4 truncated thinking",
       "kept (content null, all text in reasoning: mirroring it into content would leak "
       "thinking)", ReasoningOnly(), {O, "Still thinking when max_tokens hit"},
       "Still thinking when max_tokens hit", {}, {}},
      {"reasoning_empty_output", "empty", "same", ReasoningOnly(), {""}, {}, {}, {}},
      {"reasoning_text_before_channel", "new_line, new_line_streaming",
       "fixed: text before `<|channel>` stays content in both modes (= vLLM streaming; vLLM "
       "non-streaming dropped it)", ReasoningOnly(), {"Intro\n", O, "R", C, "\nOutro"}, "R",
       "Intro\n\nOutro", {}},
      {"reasoning_thought_label", "thought_prefix, thought_prefix_streaming", "same",
       ReasoningOnly(), {O, "thought", "\n", "Real reasoning", C, "Final"}, "Real reasoning",
       "Final", {}},
      {"reasoning_thought_label_only", "thought_prefix_only, thought_prefix_only_streaming",
       "same as chat-format.md §7.2 (reasoning \"\"); one later vLLM test expects null",
       ReasoningOnly(), {O, "thought\n", C}, "", {}, {}},
      {"reasoning_thought_label_multiline",
       "thought_prefix_multiline, thought_prefix_multiline_streaming", "same", ReasoningOnly(),
       {O + "thought\nL1\nL2" + C + "Ans"}, "L1\nL2", "Ans", {}},
      {"reasoning_label_diverges", "thought_prefix_diverge, thought_prefix_diverge_streaming",
       "same", ReasoningOnly(), {O, "thou", "sand ideas", C, "Done"}, "thousand ideas", "Done",
       {}},
      {"reasoning_tool_call_started", "tool_call_started, tool_call_started_streaming",
       "fixed: the bare `<|tool_call>` marker is not content (vLLM returns it as content)",
       ReasoningOnly(), {"<|tool_call>"}, {}, {}, {}},
      {"reasoning_adjust_request", "test_gemma4_adjust_request",
       "n/a: the server detokenizes with skip_special_tokens=false whenever a parser is "
       "configured (output_parser.h contract); here: markers present in the text are parsed",
       ReasoningOnly(), {O + "thought\nx" + C + "y"}, "x", "y", {}},
  };
  return kFixtures;
}

}  // namespace gemmad::parse::testing
