// Tests of generation_config.json parsing.
#include "model/generation_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/files.h"

namespace gemmad::model {
namespace {

using ::testing::HasSubstr;

TEST(GenerationConfigTest, ParsesReleasedGemma4File) {
  auto g = ParseGenerationConfig(R"({"bos_token_id": 2, "do_sample": true, "eos_token_id": [1, 106, 50],
    "pad_token_id": 0, "temperature": 1.0, "top_k": 64, "top_p": 0.95, "transformers_version": "5.5.0"})");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->eos_token_ids, (std::vector<int64_t>{1, 106, 50}));
  EXPECT_EQ(g->bos_token_id, 2);
  EXPECT_EQ(g->top_k, 64);
  EXPECT_DOUBLE_EQ(*g->top_p, 0.95);
  EXPECT_TRUE(*g->do_sample);
  EXPECT_FALSE(g->min_p.has_value());
  EXPECT_TRUE(g->from_file);
}

TEST(GenerationConfigTest, SingleEosAndDefaults) {
  auto g = ParseGenerationConfig(R"({"_from_model_config": true, "eos_token_id": 1, "use_cache": true})");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->eos_token_ids, (std::vector<int64_t>{1}));
  EXPECT_FALSE(g->temperature.has_value());
  EXPECT_DOUBLE_EQ(g->temperature_or_default(), 1.0);
  EXPECT_EQ(g->top_k_or_default(), 50);
  EXPECT_DOUBLE_EQ(g->top_p_or_default(), 1.0);
  auto n = ParseGenerationConfig(R"({"eos_token_id": null, "temperature": null})");
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->eos_token_ids.empty());
}

TEST(GenerationConfigTest, RejectsBadValuesNamingTheField) {
  EXPECT_THAT(ParseGenerationConfig(R"({"top_p": 1.5})").status().message(),
              HasSubstr("generation_config.json: top_p: must be in (0, 1]"));
  EXPECT_THAT(ParseGenerationConfig(R"({"eos_token_id": "1"})").status().message(), HasSubstr("eos_token_id"));
  EXPECT_THAT(ParseGenerationConfig(R"({"top_k": 2.5})").status().message(), HasSubstr("top_k: expected an integer"));
  EXPECT_THAT(ParseGenerationConfig("nope").status().message(), HasSubstr("not valid JSON"));
}

TEST(GenerationConfigTest, MissingFileIsEmpty) {
  auto g = LoadGenerationConfig(JoinPath(testing::TempDir(), "no_model_here"));
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->from_file);
  std::string dir = testing::TempDir();
  ASSERT_TRUE(WriteStringToFile(JoinPath(dir, "generation_config.json"), R"({"temperature": -1})").ok());
  EXPECT_THAT(LoadGenerationConfig(dir).status().message(),
              HasSubstr(JoinPath(dir, "generation_config.json") + ": temperature"));
}

}  // namespace
}  // namespace gemmad::model
