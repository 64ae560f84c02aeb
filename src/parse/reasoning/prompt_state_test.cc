// Tests for PromptEndsInsideReasoning and Gemma4ReasoningEnded (reasoning_parser.h).
#include <gtest/gtest.h>

#include <vector>

#include "parse/reasoning/reasoning_parser.h"

namespace gemmad::parse {
namespace {

TEST(PromptEndsInsideReasoning, RenderedPrompts) {
  // Thinking off (chat-format.md §3.4): the template closes an empty channel.
  EXPECT_FALSE(PromptEndsInsideReasoning(
      "<bos><|turn>user\nHello!<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"));
  // Thinking on: the model opens the channel itself.
  EXPECT_FALSE(PromptEndsInsideReasoning(
      "<bos><|turn>system\n<|think|>\n<turn|>\n<|turn>user\nQ<turn|>\n<|turn>model\n"));
  // After tool results, with replayed reasoning earlier in the turn.
  EXPECT_FALSE(PromptEndsInsideReasoning(
      "<|turn>model\n<|channel>thought\nNeed two calls.\n<channel|><|tool_call>call:f{}"
      "<tool_call|><|tool_response>response:f{value:<|\"|>r<|\"|>}<tool_response|>"));
  // A prompt that opened the channel (e.g. continue_final_message on a thought).
  EXPECT_TRUE(PromptEndsInsideReasoning("<|turn>model\n<|channel>thought\nLet me"));
  EXPECT_TRUE(PromptEndsInsideReasoning("<|turn>model\n<|channel>"));
  EXPECT_FALSE(PromptEndsInsideReasoning("no markers at all"));
}

// Ids as in chat-format.md §1.2; 7 stands for any ordinary token.
constexpr int32_t kText = 7, kStart = 100, kEnd = 101, kTurn = 105, kCall = 48, kResp = 50,
                  kRespEnd = 51;

TEST(Gemma4ReasoningEnded, ScansBackwards) {
  using V = std::vector<int32_t>;
  EXPECT_FALSE(Gemma4ReasoningEnded(V{}));
  EXPECT_TRUE(Gemma4ReasoningEnded(V{kStart, kText, kEnd, kText}));
  EXPECT_FALSE(Gemma4ReasoningEnded(V{kStart, kText}));
  EXPECT_TRUE(Gemma4ReasoningEnded(V{kText, kEnd, kText}));   // end marker without start
  EXPECT_TRUE(Gemma4ReasoningEnded(V{kStart, kText, kCall}));  // straight to a tool call
  EXPECT_TRUE(Gemma4ReasoningEnded(V{kCall, kText, kResp}));   // bare stop token after a call
  // A completed tool exchange: new reasoning may follow.
  EXPECT_FALSE(Gemma4ReasoningEnded(V{kEnd, kCall, kText, kResp, kText, kRespEnd}));
  // Previous turn's reasoning, then a new model turn (vLLM
  // test_gemma4_previous_turn_reasoning_is_reasoning_end).
  EXPECT_FALSE(Gemma4ReasoningEnded(V{kStart, kText, kEnd, kText, kTurn, kText, kTurn, kText}));
}

}  // namespace
}  // namespace gemmad::parse
