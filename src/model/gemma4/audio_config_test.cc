// Tests of the audio_config reader: the released E2B/E4B tower, reference defaults, the golden
// tiny tower as transformers writes it, the writer's round trip, and every rejection naming its
// field.
#include "model/gemma4/audio_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/files.h"
#include "model/gemma4/config.h"
#include "model/gemma4/config_writer.h"
#include "model/gemma4/presets.h"

namespace gemmad::model::gemma4 {
namespace {

using ::testing::HasSubstr;

// The released E2B audio_config (multimodal.md §0).
constexpr char kReleased[] = R"({"model_type": "gemma4", "audio_config": {
  "model_type": "gemma4_audio", "attention_chunk_size": 12, "attention_context_left": 13,
  "attention_context_right": 0, "attention_invalid_logits_value": -1000000000.0, "attention_logit_cap": 50.0,
  "conv_kernel_size": 5, "dtype": "bfloat16", "gradient_clipping": 10000000000.0, "hidden_act": "silu",
  "hidden_size": 1024, "initializer_range": 0.02, "num_attention_heads": 8, "num_hidden_layers": 12,
  "output_proj_dims": 1536, "residual_weight": 0.5, "rms_norm_eps": 1e-06,
  "subsampling_conv_channels": [128, 32], "use_clipped_linears": true}})";

std::string With(const std::string& field_json) {
  return R"({"model_type": "gemma4", "audio_config": {)" + field_json + "}}";
}

std::string ErrorOf(const std::string& json) {
  auto r = ParseAudioConfig(json);
  EXPECT_FALSE(r.ok()) << json;
  return r.ok() ? "" : r.status().message();
}

TEST(AudioConfigTest, ParsesTheReleasedTowerWhichIsTheDefault) {
  auto a = ParseAudioConfig(kReleased);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(a->has_value());
  const AudioConfig& c = **a;
  EXPECT_EQ(c, AudioConfig{});
  EXPECT_EQ(c.hidden_size, 1024);
  EXPECT_EQ(c.head_dim(), 128);
  EXPECT_EQ(c.num_mels(), 128);
  EXPECT_EQ(c.max_past(), 12);
  EXPECT_EQ(c.context_size(), 24);
  EXPECT_EQ(c.attention_logit_cap, 50.0);
  EXPECT_EQ(c.attention_invalid_logits_value, -1e9);
  EXPECT_EQ(c.output_proj_dims, 1536);
  // Absent fields take the same defaults.
  auto d = ParseAudioConfig(With(R"("hidden_size": 64, "subsampling_conv_channels": [16, 8])"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  AudioConfig want;
  want.hidden_size = 64;
  want.subsampling_conv_channels = {16, 8};
  EXPECT_EQ(**d, want);
}

TEST(AudioConfigTest, ReadsTheGoldenTinyTowerAsTransformersWroteIt) {
  auto text = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_audio/b/config.json");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto c = ParseConfig(*text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->audio.has_value());
  EXPECT_FALSE(c->vision.has_value());
  EXPECT_EQ(c->audio->hidden_size, 32);
  EXPECT_EQ(c->audio->num_mels(), 16);
  EXPECT_EQ(c->audio->attention_chunk_size, 12);
  EXPECT_EQ(c->audio->attention_context_left, 13);
  EXPECT_EQ(c->audio->output_proj_dims, 24);
}

TEST(AudioConfigTest, NoAudioTower) {
  for (const char* json : {R"({"model_type": "gemma4", "audio_config": null})", R"({"model_type": "gemma4"})",
                           R"({"model_type": "gemma4_text", "hidden_size": 64})"}) {
    auto a = ParseAudioConfig(json);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    EXPECT_FALSE(a->has_value()) << json;
  }
}

TEST(AudioConfigTest, RejectionsNameTheField) {
  EXPECT_THAT(ErrorOf(With(R"("hidden_size": 30, "num_attention_heads": 4)")),
              HasSubstr("audio_config.hidden_size: 30 is not a multiple of num_attention_heads 4"));
  EXPECT_THAT(ErrorOf(With(R"("hidden_size": 9, "num_attention_heads": 1)")), HasSubstr("audio_config.hidden_size"));
  EXPECT_THAT(ErrorOf(With(R"("num_hidden_layers": 0)")), HasSubstr("audio_config.num_hidden_layers: must be positive"));
  EXPECT_THAT(ErrorOf(With(R"("attention_chunk_size": 0)")), HasSubstr("audio_config.attention_chunk_size"));
  EXPECT_THAT(ErrorOf(With(R"("attention_context_left": 0)")), HasSubstr("audio_config.attention_context_left"));
  EXPECT_THAT(ErrorOf(With(R"("attention_context_right": -1)")), HasSubstr("audio_config.attention_context_right"));
  EXPECT_THAT(ErrorOf(With(R"("conv_kernel_size": 0)")), HasSubstr("audio_config.conv_kernel_size"));
  EXPECT_THAT(ErrorOf(With(R"("output_proj_dims": 0)")), HasSubstr("audio_config.output_proj_dims"));
  EXPECT_THAT(ErrorOf(With(R"("subsampling_conv_channels": [128])")),
              HasSubstr("audio_config.subsampling_conv_channels: want a list of 2"));
  EXPECT_THAT(ErrorOf(With(R"("subsampling_conv_channels": [30, 8])")),
              HasSubstr("audio_config.subsampling_conv_channels: [30, 8]"));
  EXPECT_THAT(ErrorOf(With(R"("hidden_act": "gelu")")), HasSubstr("audio_config.hidden_act"));
  EXPECT_THAT(ErrorOf(With(R"("rms_norm_eps": 0)")), HasSubstr("audio_config.rms_norm_eps"));
  EXPECT_THAT(ErrorOf(With(R"("attention_logit_cap": 0)")), HasSubstr("audio_config.attention_logit_cap"));
  EXPECT_THAT(ErrorOf(With(R"("gradient_clipping": -1)")), HasSubstr("audio_config.gradient_clipping"));
  EXPECT_THAT(ErrorOf(With(R"("use_clipped_linears": "yes")")), HasSubstr("audio_config.use_clipped_linears"));
  EXPECT_THAT(ErrorOf(With(R"("model_type": "gemma3n_audio")")), HasSubstr("audio_config.model_type"));
  EXPECT_THAT(ErrorOf(R"({"model_type": "gemma4", "audio_config": 3})"), HasSubstr("audio_config"));
}

TEST(AudioConfigTest, ParseConfigCarriesTheTowerAndTheWriterRoundTrips) {
  for (const char* name : {"e2e", "e2b", "e4b"}) {
    auto p = FindPreset(name);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(p->config.audio.has_value()) << name;
    auto back = ParseConfig(ConfigToJson(p->config, ConfigLayout::kMultimodal, "bfloat16"));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->audio, p->config.audio) << name;
  }
  for (const char* name : {"26b", "31b"}) {
    auto p = FindPreset(name);
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE(p->config.audio.has_value()) << name;
  }
  // The e2e preset's tower reads 16 mel bins; E2B's the released 128.
  EXPECT_EQ(FindPreset("e2e")->config.audio->num_mels(), 16);
  EXPECT_EQ(*FindPreset("e2b")->config.audio, AudioConfig{});
  // A bad audio_config fails the whole config.json, naming the field.
  auto p = FindPreset("e2b");
  ASSERT_TRUE(p.ok());
  p->config.audio->num_attention_heads = 7;
  auto bad = ParseConfig(ConfigToJson(p->config, ConfigLayout::kMultimodal, "bfloat16"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("audio_config.hidden_size"));
}

}  // namespace
}  // namespace gemmad::model::gemma4
