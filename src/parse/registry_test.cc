// Tests for the parser registries and tool-call ids.
#include <gtest/gtest.h>

#include "parse/output_parser.h"

namespace gemmad::parse {
namespace {

TEST(Registry, KnowsGemma4) {
  EXPECT_EQ(ReasoningParserNames(), std::vector<std::string>{"gemma4"});
  EXPECT_EQ(ToolCallParserNames(), std::vector<std::string>{"gemma4"});
  EXPECT_TRUE(MakeReasoningParser("gemma4", {}).ok());
  EXPECT_TRUE(MakeToolCallParser("gemma4", {}).ok());
}

TEST(Registry, UnknownNamesListTheKnownOnes) {
  auto r = MakeReasoningParser("deepseek_r1", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "unknown reasoning parser \"deepseek_r1\"; known parsers: gemma4");
  auto t = MakeToolCallParser("hermes", {});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "unknown tool-call parser \"hermes\"; known parsers: gemma4");
  OutputParserConfig c;
  c.tool_call_parser = "llama3_json";
  EXPECT_FALSE(MakeOutputParser(c).ok());
}

TEST(ToolCallIdGenerator, VllmShapeAndDeterministic) {
  ToolCallIdGenerator a(42), b(42), c(43);
  const std::string id = a.Next();
  ASSERT_EQ(id.size(), std::string("chatcmpl-tool-").size() + 32);
  EXPECT_EQ(id.rfind("chatcmpl-tool-", 0), 0u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef", 14), std::string::npos);
  EXPECT_EQ(b.Next(), id);
  EXPECT_NE(c.Next(), id);
  EXPECT_NE(a.Next(), id);
}

TEST(ToolCallIdGenerator, DefaultIdsAreRandomPerParser) {
  auto p1 = MakeToolCallParser("gemma4", {});
  auto p2 = MakeToolCallParser("gemma4", {});
  auto d1 = (*p1)->Feed("<|tool_call>call:f{");
  auto d2 = (*p2)->Feed("<|tool_call>call:f{");
  ASSERT_FALSE(d1.empty());
  ASSERT_FALSE(d2.empty());
  EXPECT_EQ(d1[0].tool_calls[0].id->rfind("chatcmpl-tool-", 0), 0u);
  EXPECT_NE(*d1[0].tool_calls[0].id, *d2[0].tool_calls[0].id);
}

}  // namespace
}  // namespace gemmad::parse
