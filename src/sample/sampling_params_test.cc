#include "sample/sampling_params.h"

#include <gtest/gtest.h>

namespace gemmad::sample {
namespace {

SamplingLimits Limits() { return SamplingLimits{100, 20, 16}; }

void ExpectError(const SamplingParams& p, const std::string& message) {
  Status s = Validate(p, Limits());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), message);
}

TEST(SamplingParams, DefaultsAreValid) { EXPECT_TRUE(Validate(SamplingParams{}, Limits()).ok()); }

TEST(SamplingParams, RangeErrorsUseVllmMessages) {
  SamplingParams p;
  p.temperature = -0.5f;
  ExpectError(p, "temperature must be non-negative, got -0.5.");
  p = {};
  p.top_p = 0.0f;
  ExpectError(p, "top_p must be in (0, 1], got 0.0.");
  p = {};
  p.top_k = -2;
  ExpectError(p, "top_k must be 0 (disable), or at least 1, got -2.");
  p = {};
  p.min_p = 1.5f;
  ExpectError(p, "min_p must be in [0, 1], got 1.5.");
  p = {};
  p.presence_penalty = 3.0f;
  ExpectError(p, "presence_penalty must be in [-2, 2], got 3.0.");
  p = {};
  p.frequency_penalty = -2.5f;
  ExpectError(p, "frequency_penalty must be in [-2, 2], got -2.5.");
  p = {};
  p.repetition_penalty = 0.0f;
  ExpectError(p, "repetition_penalty must be greater than zero, got 0.0.");
  p = {};
  p.max_tokens = 0;
  ExpectError(p, "max_tokens must be at least 1, got 0.");
  p = {};
  p.max_tokens = 3;
  p.min_tokens = 4;
  ExpectError(p, "min_tokens must be less than or equal to max_tokens=3, got 4.");
  p = {};
  p.logprobs = 21;
  ExpectError(p, "Requested sample logprobs of 21, which is greater than max allowed: 20");
  p = {};
  p.prompt_logprobs = 30;
  ExpectError(p, "Requested prompt logprobs of 30, which is greater than max allowed: 20");
  p = {};
  p.temperature = 0.0f;
  p.n = 2;
  ExpectError(p, "n must be 1 when using greedy sampling, got 2.");
  p = {};
  p.n = 17;
  ExpectError(p, "n must be at most 16, got 17.");
}

TEST(SamplingParams, TokenIdsMustBeInTheVocabulary) {
  SamplingParams p;
  p.logit_bias = {{100, 1.0f}};
  EXPECT_FALSE(Validate(p, Limits()).ok());
  p = {};
  p.allowed_token_ids = {5, -1};
  EXPECT_FALSE(Validate(p, Limits()).ok());
  p = {};
  p.stop_token_ids = {100};
  EXPECT_FALSE(Validate(p, Limits()).ok());
  p = {};
  p.bad_words_token_ids = {{1, 200}};
  EXPECT_FALSE(Validate(p, Limits()).ok());
}

TEST(SamplingParams, NormalizedFollowsVllm) {
  SamplingParams p;
  p.temperature = 1e-3f;  // raised to 0.01, not greedy
  p.top_k = -1;
  p.seed = -1;
  p.logprobs = -1;
  p.logit_bias = {{3, 250.0f}, {4, -300.0f}};
  p.stop_token_ids = {7, 8, 7};
  SamplingParams n = Normalized(p, 100);
  EXPECT_FLOAT_EQ(n.temperature, kMinTemperature);
  EXPECT_FALSE(n.greedy());
  EXPECT_EQ(n.top_k, 0);
  EXPECT_FALSE(n.seed.has_value());
  EXPECT_EQ(*n.logprobs, 100);
  EXPECT_EQ(n.logit_bias[0].second, 100.0f);
  EXPECT_EQ(n.logit_bias[1].second, -100.0f);
  EXPECT_EQ(n.stop_token_ids, (std::vector<int32_t>{7, 8}));
  // Greedy drops the random-sampling filters; tiny positive temperatures allow n > 1.
  SamplingParams g;
  g.temperature = 0.0f;
  g.top_p = 0.5f;
  g.top_k = 3;
  g.min_p = 0.2f;
  SamplingParams gn = Normalized(g, 100);
  EXPECT_TRUE(gn.greedy());
  EXPECT_EQ(gn.top_p, 1.0f);
  EXPECT_EQ(gn.top_k, 0);
  EXPECT_EQ(gn.min_p, 0.0f);
  SamplingParams t;
  t.temperature = 1e-6f;
  t.n = 2;
  EXPECT_TRUE(Validate(Normalized(t, 100), Limits()).ok());
}

}  // namespace
}  // namespace gemmad::sample
