#include "spec/speculative_config.h"

#include <gtest/gtest.h>

namespace gemmad::spec {
namespace {

Result<SpeculativeConfig> Parse(const char* text) { return ParseSpeculativeConfig(nlohmann::json::parse(text)); }

void ExpectError(const char* text, const std::string& message) {
  auto c = Parse(text);
  ASSERT_FALSE(c.ok()) << text;
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(), message) << text;
}

TEST(SpeculativeConfig, NgramDefaultsAsVllm) {
  auto c = Parse(R"({"method": "ngram", "num_speculative_tokens": 4})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->method, SpecMethod::kNgram);
  EXPECT_EQ(c->num_speculative_tokens, 4);
  EXPECT_EQ(c->prompt_lookup_min, 5);
  EXPECT_EQ(c->prompt_lookup_max, 5);
  auto only_max = Parse(R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3})");
  EXPECT_EQ(only_max->prompt_lookup_min, 3);
  auto only_min = Parse(R"({"method": "[ngram]", "num_speculative_tokens": 2, "prompt_lookup_min": 2})");
  EXPECT_EQ(only_min->prompt_lookup_max, 2);
  auto by_model = Parse(R"({"model": "ngram", "num_speculative_tokens": 2})");  // method inferred
  EXPECT_EQ(by_model->method, SpecMethod::kNgram);
}

TEST(SpeculativeConfig, MtpAndDraftModel) {
  auto c = Parse(R"({"model": "google/gemma-4-E4B-it-assistant", "num_speculative_tokens": 4})");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->method, SpecMethod::kDraftModel);  // decided by the model's model_type when opened
  EXPECT_EQ(c->model, "google/gemma-4-E4B-it-assistant");
  auto mtp = Parse(R"({"method": "gemma4_mtp", "model": "a/b"})");  // a deprecated alias; n_predict 1
  ASSERT_TRUE(mtp.ok());
  EXPECT_EQ(mtp->method, SpecMethod::kMtp);
  EXPECT_EQ(mtp->num_speculative_tokens, 1);
  auto ignored = Parse(R"({"method": "ngram", "num_speculative_tokens": 1, "enforce_eager": true})");
  ASSERT_TRUE(ignored.ok());
  EXPECT_EQ(ignored->ignored_keys, std::vector<std::string>{"enforce_eager"});
}

TEST(SpeculativeConfig, VllmErrors) {
  ExpectError(R"({"method": "ngram"})",
              "num_speculative_tokens must be provided with speculative model unless the draft model config contains "
              "an n_predict parameter.");
  ExpectError(R"({"num_speculative_tokens": 3})", "num_speculative_tokens was provided but without speculative model.");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2})",
              "prompt_lookup_min=4 must be <= prompt_lookup_max=2");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 0})",
              "1 validation error for SpeculativeConfig: num_speculative_tokens: Input should be greater than 0");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0})",
              "1 validation error for SpeculativeConfig: prompt_lookup_max: Input should be greater than or equal to 1");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": "4"})",
              "1 validation error for SpeculativeConfig: num_speculative_tokens: Input should be a valid integer");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 2, "bogus": 1})",
              "1 validation error for SpeculativeConfig: bogus: Unexpected keyword argument");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 2, "tensor_parallel_size": 2})",
              "'tensor_parallel_size' is not a valid argument in the speculative_config. Please pass "
              "'draft_tensor_parallel_size' instead.");
  ExpectError(R"({"method": "eagle3", "model": "x/y", "num_speculative_tokens": 2})",
              "speculative method 'eagle3' is not supported by gemmad (supported: ngram, mtp with a Gemma 4 assistant "
              "model)");
  ExpectError(R"({"method": "mtp", "num_speculative_tokens": 2})",
              "method 'mtp' needs the assistant checkpoint as `model` (a Gemma 4 target has no built-in MTP layers)");
  ExpectError(R"([1])", "--speculative-config must be a JSON object");
  ExpectError(R"({"method": "ngram", "num_speculative_tokens": 100000})",
              "1 validation error for SpeculativeConfig: num_speculative_tokens: gemmad accepts at most 64 speculative "
              "tokens");
}

}  // namespace
}  // namespace gemmad::spec
