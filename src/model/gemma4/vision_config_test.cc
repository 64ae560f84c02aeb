// Tests of the vision_config reader: the released on-device and large towers, reference defaults,
// both rope_type spellings, the writer's round trip, and every rejection naming its field.
#include "model/gemma4/vision_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "model/gemma4/config.h"
#include "model/gemma4/config_writer.h"
#include "model/gemma4/presets.h"

namespace gemmad::model::gemma4 {
namespace {

using ::testing::HasSubstr;

// The released E2B vision_config (multimodal.md §0).
constexpr char kOnDevice[] = R"({"model_type": "gemma4", "vision_config": {
  "model_type": "gemma4_vision", "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 16,
  "num_attention_heads": 12, "num_key_value_heads": 12, "head_dim": 64, "patch_size": 16,
  "pooling_kernel_size": 3, "position_embedding_size": 10240, "hidden_activation": "gelu_pytorch_tanh",
  "rms_norm_eps": 1e-06, "rope_parameters": {"rope_theta": 100.0, "rope_type": "default"},
  "use_clipped_linears": true, "standardize": false, "default_output_length": 280,
  "attention_bias": false, "attention_dropout": 0.0, "max_position_embeddings": 131072, "dtype": "bfloat16"}})";

std::string With(const std::string& field_json) {
  return R"({"model_type": "gemma4", "vision_config": {)" + field_json + "}}";
}

std::string ErrorOf(const std::string& json) {
  auto r = ParseVisionConfig(json);
  EXPECT_FALSE(r.ok()) << json;
  return r.ok() ? "" : r.status().message();
}

TEST(VisionConfigTest, ParsesTheReleasedOnDeviceTower) {
  auto v = ParseVisionConfig(kOnDevice);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_TRUE(v->has_value());
  const VisionConfig& c = **v;
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.intermediate_size, 3072);
  EXPECT_EQ(c.num_hidden_layers, 16);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.patch_size, 16);
  EXPECT_EQ(c.pooling_kernel_size, 3);
  EXPECT_EQ(c.position_embedding_size, 10240);
  EXPECT_EQ(c.rope_type, "default");
  EXPECT_EQ(c.rope_theta, 100.0);
  EXPECT_TRUE(c.use_clipped_linears);
  EXPECT_FALSE(c.standardize);
  EXPECT_EQ(c.default_output_length, 280);
}

TEST(VisionConfigTest, AbsentFieldsTakeTheReferenceDefaults) {
  auto v = ParseVisionConfig(With(R"("hidden_size": 1152, "standardize": true, "rope_parameters": null,
                                     "default_output_length": null)"));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  VisionConfig want;
  want.hidden_size = 1152;
  want.standardize = true;
  EXPECT_EQ(**v, want);
  EXPECT_EQ((*v)->default_output_length, 280);
  EXPECT_EQ((*v)->rope_theta, 100.0);
}

TEST(VisionConfigTest, AcceptsBothRopeSpellings) {
  for (const char* type : {"default", "axial"}) {
    auto v = ParseVisionConfig(With(std::string(R"("rope_parameters": {"rope_type": ")") + type +
                                    R"(", "rope_theta": 50.0})"));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ((*v)->rope_type, type);
    EXPECT_EQ((*v)->rope_theta, 50.0);
  }
}

TEST(VisionConfigTest, NoVisionTower) {
  for (const char* json : {R"({"model_type": "gemma4", "vision_config": null})", R"({"model_type": "gemma4"})",
                           R"({"model_type": "gemma4_text", "hidden_size": 64})"}) {
    auto v = ParseVisionConfig(json);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_FALSE(v->has_value()) << json;
  }
}

TEST(VisionConfigTest, RejectionsNameTheField) {
  EXPECT_THAT(ErrorOf(With(R"("head_dim": 18)")), HasSubstr("vision_config.head_dim: must be a multiple of 4"));
  EXPECT_THAT(ErrorOf(With(R"("hidden_size": "wide")")), HasSubstr("vision_config.hidden_size"));
  EXPECT_THAT(ErrorOf(With(R"("num_key_value_heads": 5)")), HasSubstr("vision_config.num_key_value_heads"));
  EXPECT_THAT(ErrorOf(With(R"("patch_size": 0)")), HasSubstr("vision_config.patch_size: must be positive"));
  EXPECT_THAT(ErrorOf(With(R"("pooling_kernel_size": -3)")), HasSubstr("vision_config.pooling_kernel_size"));
  EXPECT_THAT(ErrorOf(With(R"("default_output_length": 0)")), HasSubstr("vision_config.default_output_length"));
  EXPECT_THAT(ErrorOf(With(R"("rms_norm_eps": 0)")), HasSubstr("vision_config.rms_norm_eps"));
  EXPECT_THAT(ErrorOf(With(R"("hidden_activation": "gelu")")), HasSubstr("vision_config.hidden_activation"));
  EXPECT_THAT(ErrorOf(With(R"("attention_bias": true)")), HasSubstr("vision_config.attention_bias"));
  EXPECT_THAT(ErrorOf(With(R"("model_type": "siglip_vision_model")")), HasSubstr("vision_config.model_type"));
  EXPECT_THAT(ErrorOf(With(R"("rope_parameters": {"rope_type": "mrope", "rope_theta": 100})")),
              HasSubstr("vision_config.rope_parameters.rope_type"));
  EXPECT_THAT(ErrorOf(With(R"("rope_parameters": {"rope_type": "axial", "rope_theta": 0})")),
              HasSubstr("vision_config.rope_parameters.rope_theta"));
  EXPECT_THAT(ErrorOf(R"({"model_type": "gemma4", "vision_config": 3})"), HasSubstr("vision_config"));
}

TEST(VisionConfigTest, ParseConfigCarriesTheTowerAndTheWriterRoundTrips) {
  for (const char* name : {"e2e", "e2b", "31b"}) {
    auto p = FindPreset(name);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(p->config.vision.has_value()) << name;
    auto back = ParseConfig(ConfigToJson(p->config, ConfigLayout::kMultimodal, "bfloat16"));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->vision, p->config.vision) << name;
  }
  // A bad vision_config fails the whole config.json, naming the field.
  auto p = FindPreset("e2b");
  ASSERT_TRUE(p.ok());
  p->config.vision->head_dim = 10;
  auto bad = ParseConfig(ConfigToJson(p->config, ConfigLayout::kMultimodal, "bfloat16"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("vision_config.head_dim"));
}

}  // namespace
}  // namespace gemmad::model::gemma4
