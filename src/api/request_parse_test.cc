// Request parsing: vLLM field defaults, pydantic lax coercions and validator messages.
#include <gtest/gtest.h>

#include "api/chat_request.h"
#include "api/completion_request.h"

namespace gemmad::api {
namespace {

std::optional<ApiError> Chat(const std::string& body, ChatRequest* out = nullptr) {
  ChatRequest r;
  auto e = ParseChatRequest(Json::parse(body), out ? out : &r);
  return e;
}

std::string ChatError(const std::string& body) {
  auto e = Chat(body);
  EXPECT_TRUE(e.has_value()) << body;
  if (!e) return "";
  EXPECT_TRUE(e->validation) << body;
  return e->status.message();
}

const std::string kMsgs = R"("messages":[{"role":"user","content":"hi"}])";

TEST(ChatRequestTest, DefaultsAndLaxTypes) {
  ChatRequest r;
  ASSERT_FALSE(Chat("{" + kMsgs + R"(,"temperature":"0.5","max_tokens":"7","top_k":3.0,"stream":1})", &r));
  EXPECT_EQ(r.sampling.temperature, 0.5);
  EXPECT_EQ(r.sampling.max_tokens, 7);
  EXPECT_EQ(r.sampling.top_k, 3);
  EXPECT_TRUE(r.sampling.stream);
  EXPECT_TRUE(r.add_generation_prompt);
  EXPECT_TRUE(r.sampling.skip_special_tokens);
  EXPECT_EQ(r.tool_choice, ToolChoiceKind::kNone);
  ChatRequest m;
  ASSERT_FALSE(Chat("{" + kMsgs + R"(,"max_tokens":5,"max_completion_tokens":9})", &m));
  EXPECT_EQ(m.sampling.max_tokens, 9);  // max_completion_tokens wins
}

TEST(ChatRequestTest, ToolChoiceDefaultsToAutoWithTools) {
  ChatRequest r;
  ASSERT_FALSE(Chat("{" + kMsgs + R"(,"tools":[{"type":"function","function":{"name":"f"}}]})", &r));
  EXPECT_EQ(r.tool_choice, ToolChoiceKind::kAuto);
  ChatRequest n;
  ASSERT_FALSE(Chat("{" + kMsgs + R"(,"tools":[{"type":"function","function":{"name":"f"}}],)"
                                  R"("tool_choice":{"type":"function","function":{"name":"f"}}})", &n));
  EXPECT_EQ(n.tool_choice, ToolChoiceKind::kNamed);
  EXPECT_EQ(n.tool_choice_name, "f");
}

TEST(ChatRequestTest, ValidatorMessages) {
  EXPECT_EQ(ChatError("{}"), "body.messages: Field required");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"temperature":"hot"})"),
            "body.temperature: Input should be a valid number, unable to parse string as a number");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"tool_choice":"auto"})"),
            "body: Value error, When using `tool_choice`, `tools` must be set.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"tools":[{"type":"function","function":{"name":"f"}}],)"
                                    R"("tool_choice":{"type":"function","function":{"name":"g"}}})"),
            "body: Value error, Tool 'g' has not been passed in `tools`.");
  EXPECT_NE(ChatError("{" + kMsgs + R"(,"tools":[]})").find("`tools`"), std::string::npos);
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"stream_options":{"include_usage":true}})"),
            "body: Value error, Stream options can only be defined when `stream=True`.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"top_logprobs":2})"),
            "body: Value error, when using `top_logprobs`, `logprobs` must be set to true.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"top_logprobs":-2,"logprobs":true})"),
            "body: Value error, `top_logprobs` must be a positive value or -1.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"prompt_logprobs":1,"stream":true})"),
            "body: Value error, `prompt_logprobs` are not available when `stream=True`.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"continue_final_message":true})"),
            "body: Value error, Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"cache_salt":""})"),
            "body: Value error, Parameter 'cache_salt' must be a non-empty string if provided.");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"structured_outputs":{"json":{},"regex":"a"}})"),
            "body: Value error, You can only use one kind of constraints for structured outputs ('json', 'regex' or "
            "'choice').");
  EXPECT_EQ(ChatError("{" + kMsgs + R"(,"logit_bias":{"abc":1}})"),
            "body: Value error, Found token_id `abc` in logit_bias but token_id must be an integer or string "
            "representing an integer");
  EXPECT_EQ(ChatError(R"({"messages":[{"content":"x"}]})"), "body.messages.0.role: Field required");
}

TEST(ChatRequestTest, UnknownFieldsAreIgnored) {
  EXPECT_FALSE(Chat("{" + kMsgs + R"(,"guided_json":{"type":"object"},"whatever":1})"));
}

TEST(CompletionRequestTest, PromptForms) {
  for (const char* body : {R"({"prompt":"a"})", R"({"prompt":["a","b"]})", R"({"prompt":[1,2,3]})",
                           R"({"prompt":[[1,2],[3]]})"}) {
    CompletionRequest r;
    EXPECT_FALSE(ParseCompletionRequest(Json::parse(body), &r)) << body;
    EXPECT_EQ(r.sampling.max_tokens, 16);
    EXPECT_TRUE(r.add_special_tokens);
  }
  CompletionRequest tokens;
  ASSERT_FALSE(ParseCompletionRequest(Json::parse(R"({"prompt":[[1,2],[3]],"max_tokens":null})"), &tokens));
  ASSERT_EQ(tokens.prompts.size(), 2u);
  EXPECT_TRUE(tokens.prompts[1].is_tokens);
  EXPECT_EQ(tokens.prompts[1].tokens, std::vector<int64_t>{3});
  EXPECT_FALSE(tokens.sampling.max_tokens.has_value());  // explicit null: up to the context end
  for (const char* body : {R"({})", R"({"prompt":[]})", R"({"prompt":[[]]})", R"({"prompt":{"a":1}})",
                           R"({"prompt":"a","logprobs":-3})", R"({"prompt":""})"}) {
    CompletionRequest r;
    auto e = ParseCompletionRequest(Json::parse(body), &r);
    EXPECT_TRUE(e.has_value()) << body;
  }
  CompletionRequest empty;
  auto e = ParseCompletionRequest(Json::parse(R"({"prompt":""})"), &empty);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status.message(), "body: Value error, Either prompt or prompt_embeds must be provided and non-empty.");
  CompletionRequest in_list;  // only a top-level "" is rejected (vLLM)
  EXPECT_FALSE(ParseCompletionRequest(Json::parse(R"({"prompt":["", "a"]})"), &in_list));
}

TEST(ChatRequestTest, KeepsMediaPartsAndMmProcessorKwargs) {
  ChatRequest r;
  auto e = ParseChatRequest(Json::parse(R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":)"
                                        R"({"url":"https://x/cat.jpg"}}]}],"mm_processor_kwargs":{"max_soft_tokens":560}})"),
                            &r);
  ASSERT_FALSE(e.has_value()) << e->status.message();
  EXPECT_EQ(r.messages[0]["content"][0]["type"], "image_url");
  EXPECT_EQ(r.mm_processor_kwargs["max_soft_tokens"], 560);
}

}  // namespace
}  // namespace gemmad::api
