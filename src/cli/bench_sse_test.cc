#include "cli/bench_sse.h"

#include <gtest/gtest.h>

namespace gemmad::cli {
namespace {

std::vector<std::string> Datas(const std::vector<SseEvent>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.data);
  return out;
}

TEST(SseParserTest, SplitsEventsOnBlankLines) {
  SseParser p;
  auto ev = p.Feed("data: {\"a\":1}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(Datas(ev), (std::vector<std::string>{"{\"a\":1}", "[DONE]"}));
  EXPECT_FALSE(p.Finish().has_value());
}

TEST(SseParserTest, AnyChunkingGivesTheSameEvents) {
  const std::string wire = ": ping\r\n\r\ndata: one\r\n\r\nevent: x\r\ndata: two\r\ndata: lines\r\n\r\ndata:three\n\n";
  SseParser whole;
  const auto expected = Datas(whole.Feed(wire));
  ASSERT_EQ(expected, (std::vector<std::string>{"one", "two\nlines", "three"}));
  for (size_t split = 1; split < wire.size(); ++split) {
    for (size_t step : {size_t{1}, split}) {
      SseParser p;
      std::vector<SseEvent> got;
      for (size_t i = 0; i < wire.size(); i += step) {
        auto ev = p.Feed(std::string_view(wire).substr(i, step));
        got.insert(got.end(), ev.begin(), ev.end());
      }
      EXPECT_EQ(Datas(got), expected) << "chunk size " << step;
    }
  }
}

TEST(SseParserTest, KeepsEventField) {
  SseParser p;
  auto ev = p.Feed("event: error\ndata: {}\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].event, "error");
}

TEST(SseParserTest, EventsWaitForTheBlankLine) {
  SseParser p;
  EXPECT_TRUE(p.Feed("data: partial").empty());
  EXPECT_TRUE(p.Feed("\n").empty());
  auto ev = p.Feed("\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "partial");
}

TEST(SseParserTest, FinishFlushesAnUnterminatedEvent) {
  SseParser p;
  EXPECT_TRUE(p.Feed("data: [DONE]").empty());
  auto last = p.Finish();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->data, "[DONE]");
}

TEST(SseParserTest, CommentsAndLinesWithoutDataMakeNoEvent) {
  SseParser p;
  EXPECT_TRUE(p.Feed(": keep-alive\n\nid: 3\n\n").empty());
}

TEST(CompletionChunkTest, Text) {
  auto c = ParseCompletionChunk(R"({"id":"x","choices":[{"index":0,"text":"hi","finish_reason":null}]})");
  EXPECT_EQ(c.kind, CompletionChunk::Kind::kText);
  EXPECT_EQ(c.text, "hi");
  EXPECT_FALSE(c.completion_tokens.has_value());
}

TEST(CompletionChunkTest, EmptyTextStillCountsAsAChunk) {
  auto c = ParseCompletionChunk(R"({"choices":[{"index":0,"text":""}]})");
  EXPECT_EQ(c.kind, CompletionChunk::Kind::kText);
  EXPECT_EQ(c.text, "");
}

TEST(CompletionChunkTest, UsageChunk) {
  auto c = ParseCompletionChunk(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":7}})");
  EXPECT_EQ(c.kind, CompletionChunk::Kind::kUsage);
  EXPECT_EQ(c.completion_tokens, 7);
}

TEST(CompletionChunkTest, DoneErrorAndGarbage) {
  EXPECT_EQ(ParseCompletionChunk("[DONE]").kind, CompletionChunk::Kind::kDone);
  auto e = ParseCompletionChunk(R"({"error":{"message":"boom","type":"x","code":500}})");
  EXPECT_EQ(e.kind, CompletionChunk::Kind::kError);
  EXPECT_EQ(e.error, "boom");
  auto g = ParseCompletionChunk("{not json");
  EXPECT_EQ(g.kind, CompletionChunk::Kind::kError);
  EXPECT_NE(g.error.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(ParseCompletionChunk("{}").kind, CompletionChunk::Kind::kOther);
}

}  // namespace
}  // namespace gemmad::cli
