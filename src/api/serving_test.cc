// The OpenAI handlers end to end below HTTP: real tokenizer (Gemma 4), real chat template and
// parsers, a scripted engine double. Checks vLLM's JSON shapes, SSE event sequences, stop
// strings, n > 1, logprobs, echo, batching and error messages.
#include <gtest/gtest.h>

#include <memory>

#include "api/chat_serving.h"
#include "api/completion_serving.h"
#include "api/fake_engine_test_util.h"
#include "api/misc_serving.h"
#include "api/request_fields.h"
#include "api/serving_test_util.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

using testing::Delta;
using testing::FakeEngine;
using engine::FinishReason;

using testing::RecordingSink;
using testing::Tok;

std::vector<int32_t> Ids(const std::string& text) { return Tok().Encode(text, false); }

class ServingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::EngineLimits limits = testing::TestLimits(256);
    engine_ = std::make_unique<FakeEngine>(limits);
    ctx_.engine = engine_.get();
    ctx_.tokenizer = &Tok();
    auto t = tmpl::MakeChatTemplate(tmpl::EmbeddedGemma4ToolTemplate(), "test");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ctx_.chat_template = std::move(*t);
    ctx_.options.served_model_names = {"google/gemma-4-E2B-it"};
    ctx_.options.model_root = "/models/e2b";
    ctx_.generation_defaults.eos_token_ids = {1, 106, 50};
  }
  // Every request answers `text` (then the turn-end token 106) in each of n choices.
  void Answer(const std::string& text, FinishReason reason = FinishReason::kStop) {
    std::vector<int32_t> ids = Ids(text);
    engine_->set_script([ids, reason](const engine::EngineRequest& r) {
      std::vector<engine::RequestOutput> outs;
      for (int32_t i = 0; i < r.sampling.n; ++i) {
        std::vector<int32_t> all = ids;
        std::optional<int32_t> stop;
        if (reason == FinishReason::kStop) {
          all.push_back(106);
          stop = 106;
        }
        std::vector<int32_t> head(all.begin(), all.begin() + 1), tail(all.begin() + 1, all.end());
        outs.push_back(Delta(i, head));
        outs.push_back(Delta(i, tail, reason, stop));
      }
      return outs;
    });
  }
  RecordingSink Chat(const std::string& body) {
    RecordingSink sink;
    ServeChat(ctx_, {body, "", std::chrono::steady_clock::now()}, sink);
    return sink;
  }
  RecordingSink Completion(const std::string& body) {
    RecordingSink sink;
    ServeCompletion(ctx_, {body, "", std::chrono::steady_clock::now()}, sink);
    return sink;
  }

  std::unique_ptr<FakeEngine> engine_;
  ServingContext ctx_;
};

constexpr const char* kHello = R"("messages":[{"role":"user","content":"Hi"}])";

TEST_F(ServingTest, ChatFullResponseHasVllmShape) {
  Answer("Hello world");
  RecordingSink s = Chat(std::string("{") + kHello + "}");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json r = s.json();
  std::vector<std::string> keys;
  for (auto it = r.begin(); it != r.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "object", "created", "model", "choices", "service_tier",
                                            "system_fingerprint", "usage", "prompt_logprobs", "prompt_token_ids",
                                            "kv_transfer_params"}));
  EXPECT_EQ(r["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(r["id"].get<std::string>().size(), 9u + 32u);  // vLLM: uuid4().hex
  EXPECT_EQ(r["object"], "chat.completion");
  EXPECT_EQ(r["model"], "google/gemma-4-E2B-it");
  const Json& c = r["choices"][0];
  EXPECT_EQ(c.dump(), Json::parse(R"({"index":0,"message":{"role":"assistant","content":"Hello world","refusal":null,
    "annotations":null,"audio":null,"function_call":null,"tool_calls":[],"reasoning":null},"logprobs":null,
    "finish_reason":"stop","stop_reason":106,"token_ids":null})").dump());
  int64_t prompt = static_cast<int64_t>(engine_->submitted()[0].prompt_token_ids.size());
  EXPECT_EQ(r["usage"].dump(), Json({{"prompt_tokens", prompt}, {"total_tokens", prompt + 3},
                                     {"completion_tokens", 3}, {"prompt_tokens_details", nullptr}}).dump());
  // generation_config's extra EOS ids stop too (106, 50), the primary EOS (1) is the engine's.
  EXPECT_EQ(engine_->submitted()[0].sampling.stop_token_ids, (std::vector<int32_t>{50, 106}));
}

TEST_F(ServingTest, ChatStreamEventsInVllmOrder) {
  Answer("Hello world");
  RecordingSink s = Chat(std::string("{") + kHello + R"(,"stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_FALSE(s.error);
  ASSERT_TRUE(s.done);
  ASSERT_EQ(s.events.size(), 3u);
  Json role = s.events[0];
  std::string head = R"({"id":")" + role["id"].get<std::string>() + R"(","object":"chat.completion.chunk","created":)" +
                     std::to_string(role["created"].get<int64_t>()) + R"(,"model":"google/gemma-4-E2B-it",)";
  EXPECT_EQ(role.dump(), head + R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,)"
                                R"("finish_reason":null}],"prompt_token_ids":null})");
  EXPECT_EQ(s.events[1].dump(), head + R"("choices":[{"index":0,"delta":{"content":"Hello world"},"logprobs":null,)"
                                       R"("finish_reason":"stop","stop_reason":106,"token_ids":null}]})");
  int64_t prompt = static_cast<int64_t>(engine_->submitted()[0].prompt_token_ids.size());
  EXPECT_EQ(s.events[2].dump(), head + R"("choices":[],"usage":{"prompt_tokens":)" + std::to_string(prompt) +
                                    R"(,"total_tokens":)" + std::to_string(prompt + 3) + R"(,"completion_tokens":3}})");
}

TEST_F(ServingTest, StopStringEndsTheChoiceAndCountsTokensUpToIt) {
  Answer("one two three four");
  RecordingSink s = Chat(std::string("{") + kHello + R"(,"stop":["three"]})");
  ASSERT_FALSE(s.error);
  Json c = s.json()["choices"][0];
  EXPECT_EQ(c["message"]["content"], "one two ");
  EXPECT_EQ(c["finish_reason"], "stop");
  EXPECT_EQ(c["stop_reason"], "three");
  EXPECT_EQ(s.json()["usage"]["completion_tokens"], Ids("one two three").size());
  RecordingSink incl = Chat(std::string("{") + kHello + R"(,"stop":"three","include_stop_str_in_output":true})");
  EXPECT_EQ(incl.json()["choices"][0]["message"]["content"], "one two three");
}

TEST_F(ServingTest, SeveralChoicesAndLengthFinish) {
  Answer("abc def", FinishReason::kLength);
  RecordingSink s = Chat(std::string("{") + kHello + R"(,"n":2,"temperature":0.5,"max_tokens":2})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json r = s.json();
  ASSERT_EQ(r["choices"].size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r["choices"][i]["index"], i);
    EXPECT_EQ(r["choices"][i]["finish_reason"], "length");
    EXPECT_TRUE(r["choices"][i]["stop_reason"].is_null());
  }
  EXPECT_EQ(r["usage"]["completion_tokens"], 2 * Ids("abc def").size());
  EXPECT_EQ(engine_->submitted()[0].sampling.max_tokens, 2);
}

TEST_F(ServingTest, ChatLogprobsCarryTokensBytesAndTopEntries) {
  std::vector<int32_t> ids = Ids("Hi there");
  engine_->set_script([ids](const engine::EngineRequest&) {
    engine::RequestOutput out = Delta(0, ids, FinishReason::kLength);
    for (int32_t id : ids) {
      sample::TokenLogprobs lp;
      lp.token_id = id;
      lp.logprob = -0.5f;
      lp.top = {{id, -0.5f}, {7, -1.25f}, {8, -2.0f}};
      out.logprobs.push_back(lp);
    }
    return std::vector<engine::RequestOutput>{out};
  });
  RecordingSink s = Chat(std::string("{") + kHello + R"(,"logprobs":true,"top_logprobs":2})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json content = s.json()["choices"][0]["logprobs"]["content"];
  ASSERT_EQ(content.size(), ids.size());
  EXPECT_EQ(content[0]["token"], "Hi");
  EXPECT_EQ(content[0]["logprob"], -0.5);
  EXPECT_EQ(content[0]["bytes"], Json::array({72, 105}));
  ASSERT_EQ(content[1]["top_logprobs"].size(), 2u);
  EXPECT_EQ(content[1]["top_logprobs"][0]["token"], " there");  // the sampled token first
  EXPECT_EQ(content[1]["top_logprobs"][1]["logprob"], -1.25);
  EXPECT_EQ(engine_->submitted()[0].sampling.logprobs, 2);
}

TEST_F(ServingTest, ReasoningParserSplitsThinkingFromContent) {
  ctx_.options.reasoning_parser = "gemma4";
  std::vector<int32_t> ids = Ids("<|channel>thought\nLet me think.<channel|>The answer is 4.");
  engine_->set_script([ids](const engine::EngineRequest&) {
    std::vector<int32_t> all = ids;
    all.push_back(106);
    return std::vector<engine::RequestOutput>{Delta(0, all, FinishReason::kStop, 106)};
  });
  RecordingSink s = Chat(std::string("{") + kHello + "}");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json m = s.json()["choices"][0]["message"];
  EXPECT_EQ(m["reasoning"], "Let me think.");
  EXPECT_EQ(m["content"], "The answer is 4.");
  RecordingSink st = Chat(std::string("{") + kHello + R"(,"stream":true})");
  ASSERT_EQ(st.events.size(), 2u);
  EXPECT_EQ(st.events[1]["choices"][0]["delta"].dump(),
            R"({"reasoning":"Let me think.","content":"The answer is 4."})");
}

TEST_F(ServingTest, ContentIsEmptyNotNullUnlessAChannelOrCallTookIt) {
  // vLLM (gemma4 reasoning parser): an answer of special tokens only has content "", a thinking
  // channel with nothing after it has content null.
  ctx_.options.reasoning_parser = "gemma4";
  auto answer = [&](const std::string& text) {
    std::vector<int32_t> ids = Ids(text);
    engine_->set_script([ids](const engine::EngineRequest&) {
      std::vector<int32_t> all = ids;
      all.push_back(106);
      return std::vector<engine::RequestOutput>{Delta(0, all, FinishReason::kStop, 106)};
    });
    RecordingSink s = Chat(std::string("{") + kHello + "}");
    EXPECT_FALSE(s.error) << s.error->status.ToString();
    return s.json()["choices"][0]["message"];
  };
  Json m = answer("");
  EXPECT_TRUE(m["content"].is_string()) << m.dump();
  EXPECT_EQ(m["content"], "");
  EXPECT_TRUE(m["reasoning"].is_null());
  m = answer("<|channel>thought\nHmm.<channel|>");
  EXPECT_TRUE(m["content"].is_null()) << m.dump();
  EXPECT_EQ(m["reasoning"], "Hmm.");
  ctx_.options.reasoning_parser.clear();
  EXPECT_EQ(answer("")["content"], "");
}

TEST_F(ServingTest, CompletionEchoLogprobsAndBatch) {
  engine_->set_script([](const engine::EngineRequest& r) {
    engine::RequestOutput out = Delta(0, Ids(" Paris."), FinishReason::kLength);
    if (r.sampling.prompt_logprobs) {
      std::vector<std::optional<sample::TokenLogprobs>> plp{std::nullopt};
      for (size_t i = 1; i < r.prompt_token_ids.size(); ++i) {
        sample::TokenLogprobs lp;
        lp.token_id = r.prompt_token_ids[i];
        lp.logprob = -1.0f;
        plp.push_back(lp);
      }
      out.prompt_logprobs = plp;
    }
    for (int32_t id : out.token_ids) {
      sample::TokenLogprobs lp;
      lp.token_id = id;
      lp.logprob = -0.25f;
      out.logprobs.push_back(lp);
    }
    std::vector<engine::RequestOutput> outs{out};
    for (int32_t i = 1; i < r.sampling.n; ++i) outs.push_back(Delta(i, Ids(" Paris."), FinishReason::kLength));
    return outs;
  });
  RecordingSink s = Completion(R"({"prompt":"The capital of France is","echo":true,"logprobs":0,"max_tokens":3})");
  ASSERT_FALSE(s.error) << s.error->status.ToString();
  Json c = s.json()["choices"][0];
  EXPECT_EQ(c["text"], "The capital of France is Paris.");
  Json lp = c["logprobs"];
  std::vector<int32_t> prompt = engine_->submitted()[0].prompt_token_ids;
  EXPECT_EQ(prompt[0], Tok().bos_id());  // add_special_tokens defaults to true for completions
  ASSERT_EQ(lp["tokens"].size(), prompt.size() + Ids(" Paris.").size());
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());
  EXPECT_EQ(lp["token_logprobs"][1], -1.0);
  EXPECT_EQ(lp["text_offset"][0], 0);
  EXPECT_EQ(lp["tokens"][0], "<bos>");
  EXPECT_EQ(lp["text_offset"][1], 5);  // after "<bos>"

  RecordingSink b = Completion(R"({"prompt":["a","b"],"n":2,"temperature":1,"max_tokens":3})");
  ASSERT_FALSE(b.error) << b.error->status.ToString();
  ASSERT_EQ(b.json()["choices"].size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.json()["choices"][i]["index"], i);
  EXPECT_EQ(b.json()["choices"][3]["text"], " Paris.");
}

TEST_F(ServingTest, CompletionStreamChunksHaveEveryField) {
  engine_->set_script([](const engine::EngineRequest&) {
    return std::vector<engine::RequestOutput>{Delta(0, Ids(" x"), FinishReason::kLength)};
  });
  RecordingSink s = Completion(R"({"prompt":[2, 818],"stream":true,"max_tokens":1})");
  ASSERT_TRUE(s.done);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0]["choices"].dump(), R"([{"index":0,"text":" x","logprobs":null,"finish_reason":"length",)"
                                           R"("stop_reason":null,"prompt_token_ids":null,"token_ids":null}])");
  EXPECT_EQ(s.events[0]["object"], "text_completion");
}

TEST_F(ServingTest, CompletionSuffixIsRefusedAsVllmDoes) {
  Answer("x");
  RecordingSink s = Completion(R"({"prompt":"def f(","suffix":"  return 1"})");
  ASSERT_TRUE(s.error.has_value());
  EXPECT_EQ(s.error->status.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(s.error->validation);  // "BadRequestError", not a schema error
  EXPECT_EQ(s.error->status.message(), "suffix is not currently supported");
  s = Completion(R"({"prompt":"def f(","suffix":"x","model":"nope"})");  // the model check comes first
  ASSERT_TRUE(s.error.has_value());
  EXPECT_EQ(s.error->status.code(), StatusCode::kNotFound);
  s = Completion(R"({"prompt":"def f(","suffix":null,"max_tokens":1})");
  EXPECT_FALSE(s.error.has_value());
  s = Completion(R"({"prompt":"def f(","suffix":3})");
  ASSERT_TRUE(s.error.has_value());
  EXPECT_TRUE(s.error->validation);
}

TEST_F(ServingTest, ErrorsMatchVllm) {
  Answer("x");
  auto err = [&](const std::string& body) {
    RecordingSink s = Chat(body);
    EXPECT_TRUE(s.error.has_value()) << body;
    return s.error.value_or(ApiError{});
  };
  ApiError e = err(std::string("{") + kHello + R"(,"model":"nope"})");
  EXPECT_EQ(e.status.code(), StatusCode::kNotFound);
  EXPECT_EQ(e.status.message(), "The model `nope` does not exist.");
  e = err(std::string("{") + kHello + R"(,"temperature":-1})");
  EXPECT_EQ(e.status.message(), "temperature must be non-negative, got -1.0.");
  EXPECT_EQ(e.param, "temperature");
  e = err(std::string("{") + kHello + R"(,"n":2,"temperature":0})");
  EXPECT_EQ(e.status.message(), "n must be 1 when using greedy sampling, got 2.");
  e = err(std::string("{") + kHello + R"(,"max_tokens":1000})");
  EXPECT_NE(e.status.message().find("This model's maximum context length is 256 tokens. However, you requested "
                                    "1000 output tokens"), std::string::npos);
  EXPECT_EQ(e.param, "input_tokens");
  e = err(std::string("{") + kHello + R"(,"stop":[""]})");
  EXPECT_EQ(e.status.message(), "stop cannot contain an empty string.");
  e = err(std::string("{") + kHello + R"(,"top_logprobs":21,"logprobs":true})");
  EXPECT_NE(e.status.message().find("Requested sample logprobs of 21"), std::string::npos);
  e = err(std::string("{") + kHello + R"(,"tools":[{"type":"function","function":{"name":"f"}}]})");
  EXPECT_EQ(e.status.message(),
            "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set");
  e = err(R"({"messages":"hi"})");
  EXPECT_TRUE(e.validation);
  // An empty list reaches the template, which reads messages[0]: vLLM answers Jinja's text, with
  // no template file or line in it.
  e = err(R"({"messages":[]})");
  EXPECT_FALSE(e.validation);
  EXPECT_EQ(e.status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(e.status.message(), "list object has no element 0");
  e = err("{not json");
  EXPECT_TRUE(e.validation);
}

TEST_F(ServingTest, TokenizeDetokenizeAndModels) {
  RecordingSink t;
  ServeTokenize(ctx_, {R"({"prompt":"Hello","return_token_strs":true})", "", {}}, t);
  Json tj = Json::parse(t.body);
  EXPECT_EQ(tj["count"], tj["tokens"].size());
  EXPECT_EQ(tj["max_model_len"], 256);
  EXPECT_EQ(tj["tokens"][0], Tok().bos_id());
  EXPECT_EQ(tj["token_strs"][0], "<bos>");
  RecordingSink d;
  ServeDetokenize(ctx_, {"{\"tokens\":" + tj["tokens"].dump() + "}", "", {}}, d);
  EXPECT_EQ(Json::parse(d.body)["prompt"], "<bos>Hello");
  RecordingSink c;
  ServeTokenize(ctx_, {std::string("{") + kHello + "}", "", {}}, c);
  EXPECT_GT(Json::parse(c.body)["count"].get<int>(), 3);
  RecordingSink bad;
  ServeDetokenize(ctx_, {R"({"tokens":[-1]})", "", {}}, bad);
  ASSERT_TRUE(bad.error);
  RecordingSink m;
  ServeModels(ctx_, m);
  Json mj = Json::parse(m.body);
  EXPECT_EQ(mj["data"][0]["id"], "google/gemma-4-E2B-it");
  EXPECT_EQ(mj["data"][0]["root"], "/models/e2b");
  EXPECT_EQ(mj["data"][0]["max_model_len"], 256);
  EXPECT_EQ(mj["data"][0]["permission"][0]["object"], "model_permission");
}

}  // namespace
}  // namespace gemmad::api
