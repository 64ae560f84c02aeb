// Sampling defaults, max_tokens resolution and generation_config.json handling.
#include <gtest/gtest.h>

#include "api/generation_defaults.h"
#include "api/sampling_build.h"

namespace gemmad::api {
namespace {

TEST(ResolveMaxTokensTest, FollowsGetMaxTokens) {
  int32_t v = 0;
  EXPECT_FALSE(ResolveMaxTokens(std::nullopt, 10, 100, std::nullopt, &v));
  EXPECT_EQ(v, 90);
  EXPECT_FALSE(ResolveMaxTokens(5, 10, 100, std::nullopt, &v));
  EXPECT_EQ(v, 5);
  EXPECT_FALSE(ResolveMaxTokens(std::nullopt, 10, 100, 20, &v));
  EXPECT_EQ(v, 20);
  auto e = ResolveMaxTokens(95, 10, 100, std::nullopt, &v);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->status.message(),
            "This model's maximum context length is 100 tokens. However, you requested 95 output tokens and your "
            "prompt contains 10 input tokens, for a total of 105 tokens. Please reduce the length of the input "
            "prompt or the number of requested output tokens.");
  EXPECT_EQ(e->param, "input_tokens");
  EXPECT_TRUE(ResolveMaxTokens(std::nullopt, 100, 100, std::nullopt, &v));
  EXPECT_TRUE(ResolveMaxTokens(0, 1, 100, std::nullopt, &v));
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
  engine::EngineLimits limits;
  limits.max_model_len = 100;
  limits.vocab_size = 1000;
  limits.eos_token_id = 1;
  limits.sampling.vocab_size = 1000;
  GenerationDefaults d;
  d.top_k = 64;
  d.temperature = 0.7;
  d.eos_token_ids = {1, 106};
  SamplingRequest r;
  r.temperature = 0.2;
  r.stop_token_ids = {5};
  SamplingInputs in{&r, &d, &limits, nullptr, 10, std::nullopt, std::nullopt};
  BuiltSampling out;
  ASSERT_FALSE(BuildSampling(in, &out));
  EXPECT_FLOAT_EQ(out.params.temperature, 0.2f);
  EXPECT_EQ(out.params.top_k, 64);
  EXPECT_FLOAT_EQ(out.params.top_p, 1.0f);
  EXPECT_EQ(out.params.max_tokens, 90);
  EXPECT_EQ(out.params.stop_token_ids, (std::vector<int32_t>{5, 106}));
  r.ignore_eos = true;
  out = BuiltSampling{};
  ASSERT_FALSE(BuildSampling(in, &out));
  EXPECT_EQ(out.params.stop_token_ids, (std::vector<int32_t>{5}));
  r.stop_token_ids = {5000};
  out = BuiltSampling{};
  auto e = BuildSampling(in, &out);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->param, "stop_token_ids");
}

}  // namespace
}  // namespace gemmad::api
