// Tests for message assembly, stream coalescing and the OpenAI JSON forms.
#include <gtest/gtest.h>

#include "parse/delta.h"
#include "parse/openai_json.h"
#include "parse/stream_check.h"

namespace gemmad::parse {
namespace {

ToolCallDelta Start(int index, std::string id, std::string name) {
  ToolCallDelta d;
  d.index = index;
  d.id = std::move(id);
  d.name = std::move(name);
  return d;
}
ToolCallDelta Args(int index, std::string fragment) {
  ToolCallDelta d;
  d.index = index;
  d.arguments = std::move(fragment);
  return d;
}

TEST(MessageAssembler, VllmNonStreamingRules) {
  EXPECT_EQ(AssembleMessage({}), ParsedMessage{});
  ParsedMessage plain = AssembleMessage({Delta::Content(" hi "), Delta::Content("there ")});
  EXPECT_EQ(plain.content, " hi there ");  // no tool call: content unchanged
  EXPECT_FALSE(plain.reasoning);

  ParsedMessage m = AssembleMessage({Delta::Reasoning(""), Delta::Content(" Let me check. "),
                                     Delta::ToolCall(Start(0, "i0", "f")),
                                     Delta::ToolCall(Args(0, "{\"a\": ")),
                                     Delta::ToolCall(Args(0, "1}")), Delta::Content("\n")});
  EXPECT_EQ(m.reasoning, "");  // a channel was opened
  EXPECT_EQ(m.content, "Let me check.");  // stripped because a call was made
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0], (ToolCall{"i0", "f", "{\"a\": 1}", true}));

  ParsedMessage only_space = AssembleMessage({Delta::Content(" \n"),
                                              Delta::ToolCall(Start(0, "i", "g"))});
  EXPECT_FALSE(only_space.content);
}

TEST(MessageAssembler, MarksIncompleteCalls) {
  MessageAssembler a;
  a.Add(Delta::ToolCall(Start(0, "i", "f")));
  a.Add(Delta::ToolCall(Args(0, "{\"a\": \"tru")));
  a.MarkIncomplete(0);
  a.MarkIncomplete(5);  // unknown index: ignored
  EXPECT_FALSE(a.Build().tool_calls[0].complete);
}

TEST(CoalesceDeltas, CanonicalForm) {
  const std::vector<Delta> in = {
      Delta::Reasoning(""), Delta::Reasoning("a"), Delta::Reasoning("b"), Delta::Content("c"),
      Delta::Content(""), Delta::Content("d"), Delta::ToolCall(Start(0, "i", "f")),
      Delta::ToolCall(Args(0, "{")), Delta::ToolCall(Args(0, "}")),
      Delta::ToolCall(Start(1, "j", "g")), Delta::ToolCall(Args(1, "{}"))};
  ToolCallDelta first = Start(0, "i", "f");
  first.arguments = "{}";
  ToolCallDelta second = Start(1, "j", "g");
  second.arguments = "{}";
  const std::vector<Delta> want = {Delta::Reasoning("ab"), Delta::Content("cd"),
                                   Delta::ToolCall(first), Delta::ToolCall(second)};
  EXPECT_EQ(CoalesceDeltas(in), want);
}

TEST(ValidateDeltaStream, FindsViolations) {
  EXPECT_EQ(ValidateDeltaStream({Delta::Content("ok"), Delta::ToolCall(Start(0, "i", "f")),
                                 Delta::ToolCall(Args(0, "{}"))}),
            "");
  EXPECT_NE(ValidateDeltaStream({Delta::Content("a<|\"|>b")}), "");
  EXPECT_NE(ValidateDeltaStream({Delta::Reasoning("<channel|>")}), "");
  EXPECT_NE(ValidateDeltaStream({Delta::Content("")}), "");
  EXPECT_NE(ValidateDeltaStream({Delta::Content("\xFF")}), "");
  EXPECT_NE(ValidateDeltaStream({Delta::ToolCall(Args(0, "{}"))}), "");
  EXPECT_NE(ValidateDeltaStream({Delta::ToolCall(Start(1, "i", "f"))}), "");
  Delta two;
  two.content = "x";
  two.reasoning = "y";
  EXPECT_NE(ValidateDeltaStream({two}), "");
}

TEST(OpenAiJson, DeltaKeyOrderAndAlias) {
  EXPECT_EQ(DeltaToJson(Delta::Reasoning("r")).dump(), R"({"reasoning":"r"})");
  EXPECT_EQ(DeltaToJson(Delta::Reasoning("r"), {.reasoning_content_alias = true}).dump(),
            R"({"reasoning":"r","reasoning_content":"r"})");
  EXPECT_EQ(DeltaToJson(Delta::Content("c")).dump(), R"({"content":"c"})");
  EXPECT_EQ(DeltaToJson(Delta::ToolCall(Start(0, "chatcmpl-tool-1", "f"))).dump(),
            R"({"tool_calls":[{"id":"chatcmpl-tool-1","type":"function","index":0,)"
            R"("function":{"name":"f","arguments":""}}]})");
  EXPECT_EQ(DeltaToJson(Delta::ToolCall(Args(2, "{\"a\""))).dump(),
            R"({"tool_calls":[{"index":2,"function":{"arguments":"{\"a\""}}]})");
}

TEST(OpenAiJson, MessageFields) {
  nlohmann::ordered_json msg = {{"role", "assistant"}, {"content", "old"}};
  ParsedMessage m;
  m.reasoning = "think";
  m.tool_calls.push_back({"id0", "f", "{}", true});
  WriteMessageFields(m, msg, {.reasoning_content_alias = true});
  EXPECT_EQ(msg.dump(),
            R"({"role":"assistant","content":null,"tool_calls":[{"id":"id0","type":"function",)"
            R"("function":{"name":"f","arguments":"{}"}}],"reasoning":"think",)"
            R"("reasoning_content":"think"})");
}

}  // namespace
}  // namespace gemmad::parse
