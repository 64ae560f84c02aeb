// Responses request parsing, the input-item -> chat-message conversion, the chat body, the
// bounded store and the typed event writer (no engine).
#include <gtest/gtest.h>

#include "api/responses_output.h"
#include "api/responses_request.h"
#include "api/responses_store.h"
#include "api/responses_stream.h"
#include "api/serving_test_util.h"

namespace gemmad::api {
namespace {

ResponsesRequest Parse(const std::string& body) {
  ResponsesRequest r;
  auto e = ParseResponsesRequest(Json::parse(body), &r);
  EXPECT_FALSE(e.has_value()) << (e ? e->status.message() : "");
  return r;
}

std::optional<ApiError> ParseError(const std::string& body) {
  ResponsesRequest r;
  return ParseResponsesRequest(Json::parse(body), &r);
}

Json Messages(const std::string& body, const PriorTurn* prior = nullptr) {
  Json m;
  auto e = BuildChatMessages(Parse(body), prior, &m);
  EXPECT_FALSE(e.has_value()) << (e ? e->status.message() : "");
  return m;
}

TEST(ResponsesRequest, DefaultsFollowVllm) {
  ResponsesRequest r = Parse(R"({"input":"hi"})");
  EXPECT_TRUE(r.store);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.background);
  EXPECT_EQ(r.tool_choice, "auto");
  EXPECT_EQ(r.tools, Json::array());
  EXPECT_EQ(r.truncation, "disabled");
  EXPECT_EQ(r.service_tier, "auto");
  EXPECT_TRUE(r.parallel_tool_calls);
  EXPECT_EQ(Messages(R"({"input":"hi","instructions":"Be brief."})").dump(),
            R"([{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}])");
}

TEST(ResponsesRequest, ValidationErrors) {
  auto e = ParseError(R"({"instructions":"x"})");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->validation);
  EXPECT_NE(e->status.message().find("input"), std::string::npos);
  e = ParseError(R"({"input":"x","background":true,"store":false})");
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("background can only be used when `store` is true"), std::string::npos);
  e = ParseError(R"({"input":"x","tool_choice":{"type":"function","name":"nope"},)"
                 R"("tools":[{"type":"function","name":"f"}]})");
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("Tool 'nope' has not been passed in `tools`."), std::string::npos);
  e = ParseError(R"({"input":[1]})");
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("input.0"), std::string::npos);
  e = ParseError(R"({"input":"x","text":{"format":{"type":"json_schema","name":"n"}}})");
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("text.format.schema"), std::string::npos);
  e = ParseError(R"({"input":"x","prompt":{"id":"p"}})");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(), "prompt template is not supported");
  Json many = Json::array();
  for (size_t i = 0; i <= kMaxResponsesInputItems; ++i) many.push_back(Json{{"role", "user"}, {"content", "x"}});
  ResponsesRequest r;
  e = ParseResponsesRequest(Json{{"input", many}}, &r);
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("at most"), std::string::npos);
}

TEST(ResponsesRequest, ItemsBecomeChatMessagesAsVllmBuildsThem) {
  Json m = Messages(R"({"input":[
    {"role":"user","content":[{"type":"input_text","text":"Weather?"}]},
    {"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},
    {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\": \"Paris\"}"},
    {"type":"function_call","call_id":"call_2","name":"get_weather","arguments":"{}"},
    {"type":"function_call_output","call_id":"call_1","output":"sunny"},
    {"type":"message","role":"assistant","content":[{"type":"output_text","text":"It is sunny."}]}]})");
  ASSERT_EQ(m.size(), 4u) << m.dump();
  EXPECT_EQ(m[0].dump(), R"({"role":"user","content":[{"type":"input_text","text":"Weather?"}]})");
  EXPECT_EQ(m[1]["role"], "assistant");
  EXPECT_EQ(m[1]["reasoning"], "think");
  ASSERT_EQ(m[1]["tool_calls"].size(), 2u);
  EXPECT_EQ(m[1]["tool_calls"][0].dump(),
            R"({"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}})");
  EXPECT_EQ(m[2].dump(), R"({"role":"tool","content":"sunny","tool_call_id":"call_1"})");
  EXPECT_EQ(m[3].dump(), R"({"role":"assistant","content":"It is sunny."})");
}

TEST(ResponsesRequest, BadItemsAreRefused) {
  Json m;
  auto e = BuildChatMessages(Parse(R"({"input":[{"type":"function_call","name":"f"}]})"), nullptr, &m);
  ASSERT_TRUE(e);
  EXPECT_NE(e->status.message().find("call_id"), std::string::npos);
  e = BuildChatMessages(Parse(R"({"input":[{"type":"web_search_call","id":"x"}]})"), nullptr, &m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "input");
  e = BuildChatMessages(Parse(R"({"input":[{"type":"reasoning","summary":[],"encrypted_content":"x"}]})"), nullptr, &m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(), "Encrypted content is not supported.");
  e = BuildChatMessages(Parse(R"({"input":[{"role":"robot","content":"x"}]})"), nullptr, &m);
  ASSERT_TRUE(e);
}

TEST(ResponsesRequest, PreviousTurnKeepsMessagesDropsSystemAndNonMessageOutput) {
  PriorTurn prior;
  prior.messages = Json::parse(R"([{"role":"system","content":"old"},{"role":"user","content":"Hi"}])");
  prior.output = Json::array({ReasoningItem("rs_1", "hmm", nullptr), MessageItem("msg_1", "Hello!", "completed"),
                              FunctionCallItem("fc_1", "call_1", "f", "{}", "completed")});
  Json m = Messages(R"({"input":"And?","instructions":"new"})", &prior);
  EXPECT_EQ(m.dump(), R"([{"role":"system","content":"new"},{"role":"user","content":"Hi"},)"
                      R"({"role":"assistant","content":"Hello!"},{"role":"user","content":"And?"}])");
}

TEST(ResponsesRequest, ChatBodyCarriesToolsFormatAndSampling) {
  ResponsesRequest r = Parse(R"({"input":"x","max_output_tokens":7,"temperature":0.5,"top_p":0.9,"top_k":3,
    "tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object"},"strict":true},
             {"type":"web_search_preview"}],
    "tool_choice":{"type":"function","name":"f"},"seed":4,"reasoning":{"effort":"high"},
    "text":{"format":{"type":"json_schema","name":"s","schema":{"type":"object"}}}})");
  Json b;
  ASSERT_FALSE(BuildChatBody(r, Json::array(), true, &b));
  EXPECT_EQ(b["tools"].dump(),
            R"([{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}])");
  EXPECT_EQ(b["tool_choice"].dump(), R"({"type":"function","function":{"name":"f"}})");
  EXPECT_EQ(b["max_tokens"], 7);
  EXPECT_EQ(b["temperature"], 0.5);
  EXPECT_EQ(b["top_k"], 3);
  EXPECT_EQ(b["seed"], 4);
  EXPECT_EQ(b["structured_outputs"].dump(), R"({"json":{"type":"object"}})");
  EXPECT_EQ(b["chat_template_kwargs"].dump(), R"({"reasoning_effort":"high"})");
  EXPECT_EQ(b["add_generation_prompt"], true);
  // Without --enable-auto-tool-choice the tools are rendered and no call is parsed.
  ResponsesRequest a = Parse(R"({"input":"x","tools":[{"type":"function","name":"f"}]})");
  ASSERT_FALSE(BuildChatBody(a, Json::array(), false, &b));
  EXPECT_EQ(b["tool_choice"], "none");
  ResponsesRequest both = Parse(R"({"input":"x","structured_outputs":{"regex":"a"},
    "text":{"format":{"type":"json_schema","name":"s","schema":{}}}})");
  auto e = BuildChatBody(both, Json::array(), true, &b);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(), "Cannot specify both structured_outputs and text.format");
  ResponsesRequest partial = Parse(R"({"input":[{"role":"user","content":"q"},
    {"type":"message","role":"assistant","status":"in_progress","content":[{"type":"output_text","text":"A"}]}]})");
  ASSERT_FALSE(BuildChatBody(partial, Json::array(), true, &b));
  EXPECT_EQ(b["continue_final_message"], true);
  EXPECT_EQ(b["add_generation_prompt"], false);
}

TEST(ResponsesStore, DisabledStoresNothingAndEnabledEvictsLeastRecentlyUsed) {
  ResponsesStore off(false, 10, 1 << 20);
  off.Put("resp_a", {Json{{"id", "resp_a"}}, Json::array()});
  EXPECT_FALSE(off.Get("resp_a"));
  ResponsesStore on(true, 2, 1 << 20);
  on.Put("a", {Json{{"id", "a"}}, Json::array()});
  on.Put("b", {Json{{"id", "b"}}, Json::array()});
  ASSERT_TRUE(on.Get("a"));  // a is now the most recently used
  on.Put("c", {Json{{"id", "c"}}, Json::array()});
  EXPECT_TRUE(on.Get("a"));
  EXPECT_FALSE(on.Get("b"));
  EXPECT_TRUE(on.Get("c"));
  EXPECT_EQ(on.size(), 2u);
  ResponsesStore small(true, 100, 200);
  small.Put("x", {Json{{"text", std::string(150, 'x')}}, Json::array()});
  small.Put("y", {Json{{"text", std::string(150, 'y')}}, Json::array()});
  EXPECT_FALSE(small.Get("x"));
  EXPECT_TRUE(small.Get("y"));
  EXPECT_LE(small.bytes(), 200u);
  small.Put("z", {Json{{"text", std::string(300, 'z')}}, Json::array()});
  EXPECT_FALSE(small.Get("z"));
}

TEST(ResponsesStore, CancelAbortsARunningResponseWhoseStatusThenSticks) {
  ResponsesStore store(true, 10, 1 << 20);
  Json out;
  EXPECT_EQ(store.Cancel("nope", &out), ResponsesStore::CancelResult::kNotFound);
  store.Put("done", {Json{{"status", "completed"}}, Json::array()});
  EXPECT_EQ(store.Cancel("done", &out), ResponsesStore::CancelResult::kNotCancellable);
  store.Put("run", {Json{{"status", "queued"}}, Json::array()});
  int aborted = 0;
  store.SetCanceller("run", [&] { ++aborted; });
  EXPECT_EQ(store.Cancel("run", &out), ResponsesStore::CancelResult::kCancelled);
  EXPECT_EQ(out["status"], "cancelled");
  EXPECT_EQ(aborted, 1);
  store.Finish("run", {Json{{"status", "completed"}}, Json::array()});
  EXPECT_EQ(store.Get("run")->response["status"], "cancelled");
  EXPECT_EQ(store.Cancel("run", &out), ResponsesStore::CancelResult::kNotCancellable);
  store.ClearCanceller("run");
  store.Put("bad", {Json{{"status", "queued"}}, Json::array()});
  store.Fail("bad");
  EXPECT_EQ(store.Get("bad")->response["status"], "failed");
  store.Fail("done");
  EXPECT_EQ(store.Get("done")->response["status"], "completed");
}

TEST(ResponsesEventWriter, ItemsOpenAndCloseInVllmOrder) {
  testing::RecordingSink sink;
  ResponsesEventWriter w(sink);
  ASSERT_TRUE(w.Start(Json{{"id", "resp_1"}}));
  w.Feed(parse::Delta::Reasoning("th"));
  w.Feed(parse::Delta::Reasoning("ink"));
  w.Feed(parse::Delta::Content("Hi"));
  w.Feed(parse::Delta::ToolCall({0, "call_1", "f", ""}));
  w.Feed(parse::Delta::ToolCall({0, std::nullopt, std::nullopt, "{}"}));
  w.Feed(parse::Delta::ToolCall({1, "call_2", "g", ""}));
  ASSERT_TRUE(w.Close());
  w.Complete(Json{{"id", "resp_1"}});
  std::vector<std::string> want = {
      "response.created", "response.in_progress",
      "response.output_item.added", "response.reasoning_part.added", "response.reasoning_text.delta",
      "response.reasoning_text.delta", "response.reasoning_text.done", "response.reasoning_part.done",
      "response.output_item.done",
      "response.output_item.added", "response.content_part.added", "response.output_text.delta",
      "response.output_text.done", "response.content_part.done", "response.output_item.done",
      "response.output_item.added", "response.function_call_arguments.delta",
      "response.function_call_arguments.done", "response.output_item.done",
      "response.output_item.added", "response.output_item.done",
      "response.completed"};
  EXPECT_EQ(sink.event_types, want);
  ASSERT_EQ(sink.events.size(), want.size());
  for (size_t i = 0; i < sink.events.size(); ++i) {
    EXPECT_EQ(sink.events[i]["sequence_number"], i);
    EXPECT_EQ(sink.events[i]["type"], want[i]);
  }
  EXPECT_TRUE(sink.typed_done);
  EXPECT_EQ(sink.events[6]["text"], "think");
  EXPECT_EQ(sink.events[8]["item"]["content"][0]["text"], "think");
  EXPECT_EQ(sink.events[14]["item"]["content"][0]["text"], "Hi");
  EXPECT_EQ(sink.events[15]["output_index"], 2);
  EXPECT_EQ(sink.events[15]["item"]["call_id"], "call_1");
  EXPECT_EQ(sink.events[17]["arguments"], "{}");
  EXPECT_EQ(sink.events[17]["name"], "f");
  EXPECT_EQ(sink.events[18]["item"]["arguments"], "{}");
  EXPECT_EQ(sink.events[20]["item"]["name"], "g");
  EXPECT_EQ(sink.events[20]["output_index"], 3);
  // Keys in the client types' order; the streamed ids are the ones the final response reuses.
  EXPECT_EQ(sink.events[11].dump().rfind(R"({"content_index":0,"delta":"Hi","item_id")", 0), 0u);
  ASSERT_EQ(w.ids().reasoning.size(), 1u);
  EXPECT_EQ(sink.events[2]["item"]["id"], w.ids().reasoning[0]);
  EXPECT_EQ(w.ids().reasoning[0].rfind("rs_", 0), 0u);
  EXPECT_EQ(w.ids().message[0].size(), 4u + 32u);
  EXPECT_EQ(w.ids().function_call.size(), 2u);
  EXPECT_EQ(w.ids().call_ids, (std::vector<std::string>{"call_1", "call_2"}));
}

TEST(ResponsesOutput, ItemsAndReasoningTokens) {
  parse::ParsedMessage m;
  m.reasoning = "r";
  m.content = "c";
  m.tool_calls.push_back({"call_9", "f", "{\"a\": 1}", true});
  Json items = OutputItems(m, true, ItemIds{{"rs_x"}, {}, {}}, nullptr);
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].dump(), R"({"id":"rs_x","summary":[],"type":"reasoning","content":[{"text":"r",)"
                             R"("type":"reasoning_text"}],"encrypted_content":null,"status":null})");
  EXPECT_EQ(items[1]["content"][0].dump(), R"({"annotations":[],"text":"c","type":"output_text","logprobs":null})");
  EXPECT_EQ(items[2]["call_id"], "call_9");
  EXPECT_EQ(items[2]["id"].get<std::string>().rfind("fc_", 0), 0u);
  parse::ParsedMessage empty;
  EXPECT_EQ(OutputItems(empty, true, {}, nullptr).size(), 0u);
  Json plain = OutputItems(empty, false, {}, nullptr);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0]["content"], Json::array());
  EXPECT_EQ(CountReasoningTokens({5, 100, 7, 8, 101, 9}, 100, 101), 2);
  EXPECT_EQ(ResponsesUsage(10, 4, 6, 2).dump(),
            R"({"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":6,)"
            R"("output_tokens_details":{"reasoning_tokens":2},"total_tokens":16})");
}

}  // namespace
}  // namespace gemmad::api
