// /v1/responses handlers below HTTP: real tokenizer, chat template and gemma4 parsers, a
// scripted engine. Checks the response object, output items, usage, the typed event stream and
// the store (retrieve, cancel, previous_response_id) against vLLM's behaviour.
#include <gtest/gtest.h>

#include <memory>

#include "api/fake_engine_test_util.h"
#include "api/responses_serving.h"
#include "api/responses_store.h"
#include "api/serving_test_util.h"

namespace gemmad::api {
namespace {

using engine::FinishReason;
using testing::Delta;
using testing::FakeEngine;
using testing::RecordingSink;
using testing::Tok;

std::vector<int32_t> Ids(const std::string& text) { return Tok().Encode(text, false); }

class ResponsesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineLimits limits = testing::TestLimits(512);
    engine_ = std::make_unique<FakeEngine>(limits);
    ctx_.engine = engine_.get();
    ctx_.tokenizer = &Tok();
    auto t = tmpl::MakeChatTemplate(tmpl::EmbeddedGemma4ToolTemplate(), "test");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ctx_.chat_template = std::move(*t);
    ctx_.options.served_model_names = {"google/gemma-4-E2B-it"};
    ctx_.generation_defaults.eos_token_ids = {1, 106, 50};
  }
  void Parsers() {
    ctx_.options.reasoning_parser = "gemma4";
    ctx_.options.tool_call_parser = "gemma4";
    ctx_.options.enable_auto_tool_choice = true;
  }
  void Store(bool on) { ctx_.responses_store = std::make_shared<ResponsesStore>(on, 16, 1 << 20); }
  // Every request answers `text` one token per engine step, then `stop` (unless length).
  void Answer(const std::string& text, FinishReason reason = FinishReason::kStop, int32_t stop = 106) {
    std::vector<int32_t> ids = Ids(text);
    engine_->set_script([ids, reason, stop](const engine::EngineRequest&) {
      std::vector<engine::RequestOutput> outs;
      for (size_t i = 0; i + 1 < ids.size(); ++i) outs.push_back(Delta(0, {ids[i]}));
      if (reason == FinishReason::kStop) {
        outs.push_back(Delta(0, {ids.back()}));
        outs.push_back(Delta(0, {stop}, reason, stop));
      } else {
        outs.push_back(Delta(0, {ids.back()}, reason));
      }
      return outs;
    });
  }
  RecordingSink Create(const std::string& body) {
    RecordingSink sink;
    ServeResponses(ctx_, {body, "", std::chrono::steady_clock::now()}, sink);
    return sink;
  }
  std::string LastPrompt() const {
    return Tok().Decode(engine_->submitted().back().prompt_token_ids, false);
  }

  std::unique_ptr<FakeEngine> engine_;
  ServingContext ctx_;
};

TEST_F(ResponsesTest, TextInputGivesOneMessageAndEveryResponseField) {
  Answer("Hello world");
  RecordingSink s = Create(R"({"input":"Hi","instructions":"Be brief.","temperature":0.7,"max_output_tokens":20})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json r = s.json();
  std::vector<std::string> keys;
  for (auto it = r.begin(); it != r.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "id", "created_at", "incomplete_details", "instructions", "metadata", "model", "object",
                      "output", "parallel_tool_calls", "temperature", "tool_choice", "tools", "top_p", "background",
                      "max_output_tokens", "max_tool_calls", "previous_response_id", "prompt", "reasoning",
                      "service_tier", "status", "text", "top_logprobs", "truncation", "usage", "user",
                      "input_messages", "output_messages"}));
  EXPECT_EQ(r["id"].get<std::string>().rfind("resp_", 0), 0u);
  EXPECT_EQ(r["id"].get<std::string>().size(), 5u + 32u);
  EXPECT_EQ(r["object"], "response");
  EXPECT_EQ(r["status"], "completed");
  EXPECT_EQ(r["instructions"], "Be brief.");
  EXPECT_EQ(r["temperature"].dump(), "0.7");
  EXPECT_EQ(r["max_output_tokens"], 20);
  EXPECT_EQ(r["tool_choice"], "auto");
  EXPECT_EQ(r["incomplete_details"], nullptr);
  ASSERT_EQ(r["output"].size(), 1u);
  const Json& msg = r["output"][0];
  EXPECT_EQ(msg["type"], "message");
  EXPECT_EQ(msg["id"].get<std::string>().rfind("msg_", 0), 0u);
  EXPECT_EQ(msg["content"][0]["text"], "Hello world");
  int64_t prompt = static_cast<int64_t>(engine_->submitted()[0].prompt_token_ids.size());
  EXPECT_EQ(r["usage"]["input_tokens"], prompt);
  EXPECT_EQ(r["usage"]["output_tokens"], 3);
  EXPECT_EQ(r["usage"]["total_tokens"], prompt + 3);
  EXPECT_NE(LastPrompt().find("Be brief."), std::string::npos);
  EXPECT_EQ(engine_->submitted()[0].request_id, r["id"]);
}

TEST_F(ResponsesTest, ThinkingAndToolCallBecomeReasoningAndFunctionCallItems) {
  Parsers();
  Answer("<|channel>thought\nNeed weather.<channel|><|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>",
         FinishReason::kStop, 50);
  const std::string body = R"({"input":"Weather in Paris?","tools":[{"type":"function","name":"get_weather",
    "parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]})";
  RecordingSink s = Create(body);
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json out = s.json()["output"];
  ASSERT_EQ(out.size(), 2u) << out.dump();
  EXPECT_EQ(out[0]["type"], "reasoning");
  EXPECT_EQ(out[0]["content"][0]["text"], "Need weather.");
  EXPECT_EQ(out[1]["type"], "function_call");
  EXPECT_EQ(out[1]["name"], "get_weather");
  EXPECT_EQ(out[1]["arguments"], "{\"city\": \"Paris\"}");
  EXPECT_EQ(out[1]["status"], "completed");
  EXPECT_EQ(out[1]["id"].get<std::string>().rfind("fc_", 0), 0u);
  EXPECT_FALSE(out[1]["call_id"].get<std::string>().empty());
  EXPECT_EQ(s.json()["usage"]["output_tokens_details"]["reasoning_tokens"], Ids("thought\nNeed weather.").size());
  EXPECT_NE(LastPrompt().find("get_weather"), std::string::npos);

  // Streamed: the same items, the typed events in vLLM's order, no [DONE].
  RecordingSink st = Create(body.substr(0, body.size() - 1) + R"(,"stream":true})");
  ASSERT_FALSE(st.error);
  EXPECT_TRUE(st.typed_done);
  EXPECT_FALSE(st.done);
  ASSERT_GE(st.event_types.size(), 8u);
  EXPECT_EQ(st.event_types[0], "response.created");
  EXPECT_EQ(st.event_types[1], "response.in_progress");
  EXPECT_EQ(st.event_types[2], "response.output_item.added");
  EXPECT_EQ(st.event_types[3], "response.reasoning_part.added");
  EXPECT_EQ(st.events[0]["response"]["status"], "in_progress");
  EXPECT_EQ(st.events[0]["response"]["output"], Json::array());
  EXPECT_EQ(st.event_types.back(), "response.completed");
  std::string reasoning, args;
  for (const Json& e : st.events) {
    if (e["type"] == "response.reasoning_text.delta") reasoning += e["delta"].get<std::string>();
    if (e["type"] == "response.function_call_arguments.delta") args += e["delta"].get<std::string>();
  }
  EXPECT_EQ(reasoning, "Need weather.");
  EXPECT_EQ(args, "{\"city\": \"Paris\"}");
  Json done = st.events.back()["response"];
  EXPECT_EQ(done["status"], "completed");
  ASSERT_EQ(done["output"].size(), 2u);
  // The final response repeats the streamed item ids.
  EXPECT_EQ(done["output"][0]["id"], st.events[2]["item"]["id"]);
  for (const Json& e : st.events) {
    if (e["type"] == "response.output_item.added" && e["item"]["type"] == "function_call") {
      EXPECT_EQ(done["output"][1]["id"], e["item"]["id"]);
      EXPECT_EQ(done["output"][1]["call_id"], e["item"]["call_id"]);
    }
  }
}

TEST_F(ResponsesTest, LengthFinishIsIncomplete) {
  Answer("one two three", FinishReason::kLength);
  RecordingSink s = Create(R"({"input":"Count","max_output_tokens":3})");
  ASSERT_FALSE(s.error);
  EXPECT_EQ(s.json()["status"], "incomplete");
  EXPECT_EQ(s.json()["incomplete_details"].dump(), R"({"reason":"max_output_tokens"})");
}

TEST_F(ResponsesTest, IncludedOutputLogprobsSitOnTheOutputText) {
  std::vector<int32_t> ids = Ids("Hi there");
  engine_->set_script([ids](const engine::EngineRequest&) {
    engine::RequestOutput out = Delta(0, ids, FinishReason::kLength);
    for (int32_t id : ids) {
      sample::TokenLogprobs lp;
      lp.token_id = id;
      lp.logprob = -0.5f;
      lp.top = {{id, -0.5f}, {7, -1.25f}};
      out.logprobs.push_back(lp);
    }
    return std::vector<engine::RequestOutput>{out};
  });
  RecordingSink s = Create(R"({"input":"Hi","include":["message.output_text.logprobs"],"top_logprobs":2})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json part = s.json()["output"][0]["content"][0];
  ASSERT_EQ(part["logprobs"].size(), ids.size()) << part.dump();
  EXPECT_EQ(part["logprobs"][0]["token"], "Hi");
  EXPECT_EQ(part["logprobs"][0]["logprob"], -0.5);
  EXPECT_EQ(part["logprobs"][1]["top_logprobs"].size(), 2u);
  EXPECT_EQ(s.json()["top_logprobs"], 2);
  EXPECT_EQ(engine_->submitted()[0].sampling.logprobs, 2);
  RecordingSink st = Create(R"({"input":"Hi","include":["message.output_text.logprobs"],"top_logprobs":1,)"
                            R"("stream":true})");
  ASSERT_FALSE(st.error);
  Json delta;
  for (const Json& e : st.events) {
    if (e["type"] == "response.output_text.delta") delta = e;
  }
  ASSERT_EQ(delta["logprobs"].size(), ids.size()) << delta.dump();
  EXPECT_EQ(delta["logprobs"][0].dump(), R"({"token":"Hi","logprob":-0.5,"top_logprobs":[{"token":"Hi","logprob":-0.5}]})");
  RecordingSink plain = Create(R"({"input":"Hi"})");
  EXPECT_EQ(plain.json()["output"][0]["content"][0]["logprobs"], nullptr);
  EXPECT_EQ(plain.json()["top_logprobs"], nullptr);
}

TEST_F(ResponsesTest, StoreOffRetrieveAndPreviousIdAre404) {
  Answer("Hello");
  Store(false);
  RecordingSink s = Create(R"({"input":"Hi"})");
  ASSERT_FALSE(s.error);
  std::string id = s.json()["id"];
  RecordingSink g;
  ServeResponseRetrieve(ctx_, id, "", g);
  ASSERT_TRUE(g.error);
  EXPECT_EQ(g.error->status.code(), StatusCode::kNotFound);
  EXPECT_EQ(g.error->status.message(), "Response with id '" + id + "' not found.");
  EXPECT_EQ(g.error->type, "invalid_request_error");
  EXPECT_EQ(g.error->param, "response_id");
  RecordingSink p = Create(R"({"input":"Hi","previous_response_id":")" + id + R"("})");
  ASSERT_TRUE(p.error);
  EXPECT_EQ(p.error->status.code(), StatusCode::kNotFound);
  RecordingSink b = Create(R"({"input":"Hi","background":true})");
  ASSERT_TRUE(b.error);
  EXPECT_NE(b.error->status.message().find("VLLM_ENABLE_RESPONSES_API_STORE=1"), std::string::npos);
  EXPECT_EQ(b.error->param, "background");
}

TEST_F(ResponsesTest, StoreOnRetrieveCancelAndPreviousResponse) {
  Answer("Hello world");
  Store(true);
  RecordingSink s = Create(R"({"input":"First question","instructions":"Old rules."})");
  ASSERT_FALSE(s.error);
  std::string id = s.json()["id"];
  RecordingSink g;
  ServeResponseRetrieve(ctx_, id, "", g);
  ASSERT_FALSE(g.error);
  EXPECT_EQ(g.json(), s.json());
  RecordingSink c;
  ServeResponseCancel(ctx_, id, c);
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->status.message(), "Cannot cancel a synchronous response.");
  RecordingSink missing;
  ServeResponseCancel(ctx_, "resp_nope", missing);
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->status.code(), StatusCode::kNotFound);
  RecordingSink n = Create(R"({"input":"Second question","previous_response_id":")" + id + R"("})");
  ASSERT_FALSE(n.error) << n.error->status.ToString();
  EXPECT_EQ(n.json()["previous_response_id"], id);
  std::string prompt = LastPrompt();
  size_t first = prompt.find("First question"), answer = prompt.find("Hello world"),
         second = prompt.find("Second question");
  ASSERT_NE(first, std::string::npos) << prompt;
  ASSERT_NE(answer, std::string::npos) << prompt;
  EXPECT_LT(first, answer);
  EXPECT_LT(answer, second);
  EXPECT_EQ(prompt.find("Old rules."), std::string::npos) << "instructions do not carry over";
  RecordingSink streamed = Create(R"({"input":"Hi","store":false})");
  ASSERT_FALSE(streamed.error);
  RecordingSink gone;
  ServeResponseRetrieve(ctx_, streamed.json()["id"], "", gone);
  EXPECT_TRUE(gone.error) << "store:false responses are not stored";
}

TEST_F(ResponsesTest, BackgroundAnswersQueuedThenStoresTheResult) {
  Answer("Hello world");
  Store(true);
  RecordingSink s = Create(R"({"input":"Hi","background":true})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  EXPECT_EQ(s.json()["status"], "queued");
  EXPECT_EQ(s.json()["background"], true);
  EXPECT_EQ(s.json()["output"], Json::array());
  RecordingSink g;
  ServeResponseRetrieve(ctx_, s.json()["id"], "", g);
  ASSERT_FALSE(g.error);
  EXPECT_EQ(g.json()["status"], "completed");  // the fake engine finished inside the handler
  EXPECT_EQ(g.json()["output"][0]["content"][0]["text"], "Hello world");
  RecordingSink plain;
  ServeResponseRetrieve(ctx_, s.json()["id"], "stream=true", plain);
  ASSERT_TRUE(plain.error) << "only background streams record events";
  EXPECT_EQ(plain.error->status.message(), "Unknown response_id: " + s.json()["id"].get<std::string>());
}

TEST_F(ResponsesTest, BackgroundStreamRecordsItsEventsForReplay) {
  Answer("Hello world");
  Store(true);
  RecordingSink st = Create(R"({"input":"Hi","background":true,"stream":true})");
  ASSERT_FALSE(st.error) << st.error->status.ToString();
  ASSERT_GE(st.events.size(), 5u);
  EXPECT_TRUE(st.typed_done);
  EXPECT_EQ(st.event_types.front(), "response.created");
  EXPECT_EQ(st.event_types.back(), "response.completed");
  EXPECT_EQ(st.events.front()["response"]["background"], true);
  std::string id = st.events.front()["response"]["id"];
  RecordingSink stored;
  ServeResponseRetrieve(ctx_, id, "", stored);
  ASSERT_FALSE(stored.error);
  EXPECT_EQ(stored.json()["status"], "completed");
  EXPECT_EQ(stored.json()["output"][0]["content"][0]["text"], "Hello world");
  RecordingSink all;
  ServeResponseRetrieve(ctx_, id, "stream=true", all);
  ASSERT_FALSE(all.error);
  EXPECT_EQ(all.event_types, st.event_types);
  EXPECT_EQ(all.events, st.events);
  EXPECT_TRUE(all.typed_done);
  RecordingSink tail;
  ServeResponseRetrieve(ctx_, id, "stream=true&starting_after=2", tail);
  ASSERT_EQ(tail.events.size(), st.events.size() - 3);
  EXPECT_EQ(tail.events.front()["sequence_number"], 3);
  EXPECT_EQ(tail.event_types.back(), "response.completed");
  RecordingSink bad;
  ServeResponseRetrieve(ctx_, id, "stream=true&starting_after=x", bad);
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->param, "starting_after");
}

TEST_F(ResponsesTest, EngineErrorMidStreamIsTheTypedErrorEvent) {
  std::vector<int32_t> ids = Ids("Hello world");
  engine_->set_script([ids](const engine::EngineRequest&) {
    return std::vector<engine::RequestOutput>{Delta(0, {ids[0]}), Delta(0, {}, FinishReason::kError)};
  });
  Store(true);
  RecordingSink s = Create(R"({"input":"Hi","stream":true})");
  ASSERT_FALSE(s.error) << "no chat-route error chunk";
  ASSERT_GE(s.events.size(), 3u);
  EXPECT_EQ(s.event_types.back(), "error");
  EXPECT_EQ(s.events.back()["message"], "Internal server error");
  EXPECT_EQ(s.events.back()["code"], "500");
  EXPECT_EQ(s.events.back()["sequence_number"], static_cast<int64_t>(s.events.size()) - 1);
  EXPECT_TRUE(s.typed_done);
  EXPECT_FALSE(s.done) << "no data: [DONE]";
  RecordingSink b = Create(R"({"input":"Hi","stream":true,"background":true})");
  ASSERT_FALSE(b.error);
  EXPECT_EQ(b.event_types.back(), "error");
  std::string id = b.events.front()["response"]["id"];
  RecordingSink g;
  ServeResponseRetrieve(ctx_, id, "", g);
  EXPECT_EQ(g.json()["status"], "failed");
  RecordingSink replay;
  ServeResponseRetrieve(ctx_, id, "stream=true&starting_after=1", replay);
  ASSERT_FALSE(replay.events.empty());
  EXPECT_EQ(replay.event_types.back(), "error");
  EXPECT_TRUE(replay.typed_done);
}

TEST_F(ResponsesTest, BadRequestsAreRefusedBeforeTheEngine) {
  Answer("x");
  RecordingSink a = Create(R"({"input":[{"type":"function_call_output","output":"x"}]})");
  ASSERT_TRUE(a.error);
  EXPECT_NE(a.error->status.message().find("call_id"), std::string::npos);
  RecordingSink b = Create(R"({"input":"x","model":"nope"})");
  ASSERT_TRUE(b.error);
  EXPECT_EQ(b.error->status.code(), StatusCode::kNotFound);
  RecordingSink c = Create(R"({"input":"x","temperature":-1})");
  ASSERT_TRUE(c.error);
  EXPECT_EQ(c.error->param, "temperature");
  RecordingSink d = Create("{bad");
  ASSERT_TRUE(d.error);
  EXPECT_TRUE(engine_->submitted().empty());
}

}  // namespace
}  // namespace gemmad::api
