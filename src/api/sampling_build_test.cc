// Sampling defaults, max_tokens resolution and generation_config.json handling.
#include <gtest/gtest.h>

#include "api/generation_defaults.h"
#include "api/sampling_build.h"

#include <functional>
#include <vector>

namespace gemmad::api {
namespace {

engine::EngineLimits Limits() {
  engine::EngineLimits limits;
  limits.max_model_len = 100;
  limits.max_kv_sequence_tokens = 100;
  limits.vocab_size = 1000;
  limits.eos_token_id = 1;
  limits.sampling.vocab_size = 1000;
  return limits;
}

// max_tokens as vLLM's get_max_tokens resolves it, and the context-length error, both from the
// engine's one admission check (engine::ValidateRequest) that BuildSampling calls.
std::optional<ApiError> MaxTokens(std::optional<int64_t> requested, int prompt_len, std::optional<int64_t> model_max,
                                  int32_t* v) {
  engine::EngineLimits limits = Limits();
  GenerationDefaults d;
  d.max_tokens = model_max;
  SamplingRequest r;
  r.max_tokens = requested;
  std::vector<int32_t> prompt(static_cast<size_t>(prompt_len), 7);
  SamplingInputs in{&r, &d, &limits, nullptr, &prompt, std::nullopt, std::nullopt};
  BuiltSampling out;
  auto e = BuildSampling(in, &out);
  if (!e) {
    *v = out.params().max_tokens.value_or(-1);
  }
  return e;
}

TEST(BuildSamplingTest, MaxTokensFollowsGetMaxTokens) {
  int32_t v = 0;
  EXPECT_FALSE(MaxTokens(std::nullopt, 10, std::nullopt, &v));
  EXPECT_EQ(v, 90);
  EXPECT_FALSE(MaxTokens(5, 10, std::nullopt, &v));
  EXPECT_EQ(v, 5);
  EXPECT_FALSE(MaxTokens(std::nullopt, 10, 20, &v));
  EXPECT_EQ(v, 20);
  EXPECT_FALSE(MaxTokens(50, 10, 20, &v));
  EXPECT_EQ(v, 20);
  auto e = MaxTokens(95, 10, std::nullopt, &v);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(),
            "This model's maximum context length is 100 tokens. However, you requested 95 output tokens and your "
            "prompt contains 10 input tokens, for a total of 105 tokens. Please reduce the length of the input "
            "prompt or the number of requested output tokens.");
  EXPECT_EQ(e->param, "input_tokens");
  // The model's default limit never hides a request beyond the context.
  e = MaxTokens(95, 10, 20, &v);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "input_tokens");
  e = MaxTokens(std::nullopt, 100, std::nullopt, &v);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "input_tokens");
  e = MaxTokens(0, 1, std::nullopt, &v);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(), "max_tokens must be at least 1, got 0.");
  EXPECT_EQ(e->param, "max_tokens");
}

TEST(BuildSamplingTest, EveryEngineErrorNamesItsField) {
  engine::EngineLimits limits = Limits();
  GenerationDefaults d;
  std::vector<int32_t> prompt(10, 7);
  struct Case {
    std::function<void(SamplingRequest&)> set;
    const char* param;
  } cases[] = {
      {[](SamplingRequest& r) { r.temperature = -1.0; }, "temperature"},
      {[](SamplingRequest& r) { r.top_p = 0.0; }, "top_p"},
      {[](SamplingRequest& r) { r.top_k = -5; }, "top_k"},
      {[](SamplingRequest& r) { r.min_p = 2.0; }, "min_p"},
      {[](SamplingRequest& r) { r.presence_penalty = 3.0; }, "presence_penalty"},
      {[](SamplingRequest& r) { r.frequency_penalty = -3.0; }, "frequency_penalty"},
      {[](SamplingRequest& r) { r.repetition_penalty = 0.0; }, "repetition_penalty"},
      {[](SamplingRequest& r) { r.n = 0; }, "n"},
      {[](SamplingRequest& r) { r.min_tokens = 50; r.max_tokens = 10; }, "min_tokens"},
      {[](SamplingRequest& r) { r.logit_bias = {{5000, 1.0}}; }, "logit_bias"},
      {[](SamplingRequest& r) { r.allowed_token_ids = std::vector<int64_t>{5000}; }, "allowed_token_ids"},
      {[](SamplingRequest& r) { r.stop_token_ids = {5000}; }, "stop_token_ids"},
  };
  for (const Case& c : cases) {
    SamplingRequest r;
    c.set(r);
    SamplingInputs in{&r, &d, &limits, nullptr, &prompt, std::nullopt, std::nullopt};
    BuiltSampling out;
    auto e = BuildSampling(in, &out);
    ASSERT_TRUE(e) << c.param;
    EXPECT_EQ(e->param, c.param) << e->status.message();
    EXPECT_FALSE(out.request.has_value());
  }
  SamplingRequest r;
  SamplingInputs in{&r, &d, &limits, nullptr, &prompt, 30, std::nullopt};
  BuiltSampling out;
  auto e = BuildSampling(in, &out);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "logprobs");
}

TEST(GenerationDefaultsTest, AutoVllmAndOverrides) {
  const char* json = R"({"temperature": 1.0, "top_k": 64, "top_p": 0.95, "max_new_tokens": 100,
                         "eos_token_id": [1, 106], "do_sample": true})";
  auto d = ParseGenerationDefaults(json, true, nullptr);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->temperature.has_value());  // equal to transformers' default: to_diff_dict drops it
  EXPECT_EQ(d->top_k, 64);
  EXPECT_EQ(d->top_p, 0.95);
  EXPECT_EQ(d->max_tokens, 100);
  EXPECT_EQ(d->eos_token_ids, (std::vector<int32_t>{1, 106}));
  auto v = ParseGenerationDefaults(json, false, nlohmann::ordered_json{{"temperature", 0.3}});
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->top_k.has_value());  // --generation-config vllm
  EXPECT_EQ(v->temperature, 0.3);      // --override-generation-config still applies
  EXPECT_EQ(v->eos_token_ids.size(), 2u);
  EXPECT_FALSE(ParseGenerationDefaults(R"({"top_k": "x"})", true, nullptr).ok());
  EXPECT_FALSE(ParseGenerationDefaults("[1]", true, nullptr).ok());
}

TEST(BuildSamplingTest, RequestBeatsModelDefaultsBeatsVllmDefaults) {
  engine::EngineLimits limits = Limits();
  GenerationDefaults d;
  d.top_k = 64;
  d.temperature = 0.7;
  d.eos_token_ids = {1, 106};
  SamplingRequest r;
  r.temperature = 0.2;
  r.stop_token_ids = {5};
  std::vector<int32_t> prompt(10, 7);
  SamplingInputs in{&r, &d, &limits, nullptr, &prompt, std::nullopt, std::nullopt};
  BuiltSampling out;
  ASSERT_FALSE(BuildSampling(in, &out));
  EXPECT_FLOAT_EQ(out.params().temperature, 0.2f);
  EXPECT_EQ(out.params().top_k, 64);
  EXPECT_FLOAT_EQ(out.params().top_p, 1.0f);
  EXPECT_EQ(out.params().max_tokens, 90);
  EXPECT_EQ(out.params().stop_token_ids, (std::vector<int32_t>{5, 106}));
  r.ignore_eos = true;
  out = BuiltSampling{};
  ASSERT_FALSE(BuildSampling(in, &out));
  EXPECT_EQ(out.params().stop_token_ids, (std::vector<int32_t>{5}));
  r.stop_token_ids = {5000};
  out = BuiltSampling{};
  auto e = BuildSampling(in, &out);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "stop_token_ids");
}

}  // namespace
}  // namespace gemmad::api
