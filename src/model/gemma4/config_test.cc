// Tests of ParseConfig/LoadConfig over both config layouts, reference defaults, null handling,
// KV donors and every rejection path.
#include "model/gemma4/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/files.h"

namespace gemmad::model::gemma4 {
namespace {

using ::testing::HasSubstr;

// T1 as transformers 5.25 writes it (per_layer_config layout).
constexpr char kT1[] = R"({
  "architectures": ["Gemma4ForCausalLM"], "attention_bias": false, "attention_k_eq_v": false,
  "bos_token_id": 2, "dtype": "float32", "enable_moe_block": false, "eos_token_id": 1,
  "final_logit_softcapping": 30.0, "head_dim": 16, "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 64, "hidden_size_per_layer_input": 8, "intermediate_size": 128,
  "layer_types": ["sliding_attention", "sliding_attention", "full_attention", "sliding_attention",
                  "sliding_attention", "sliding_attention", "full_attention"],
  "max_position_embeddings": 256, "model_type": "gemma4_text", "moe_intermediate_size": null,
  "num_attention_heads": 4, "num_experts": null, "num_hidden_layers": 7, "num_key_value_heads": 2,
  "num_kv_shared_layers": 3, "pad_token_id": 0,
  "per_layer_config": {"2": {"head_dim": 32}, "6": {"head_dim": 32}},
  "rms_norm_eps": 1e-06,
  "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                                         "rope_type": "proportional"},
                      "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}},
  "sliding_window": 4, "tie_word_embeddings": true, "top_k_experts": null, "use_bidirectional_attention": null,
  "use_double_wide_mlp": true, "vocab_size": 512, "vocab_size_per_layer_input": 512})";

// The released E2B layout: multimodal wrapper, global_head_dim, nulls.
std::string E2bConfig() {
  std::string types;
  for (int i = 0; i < 35; ++i) types += std::string(i ? "," : "") + ((i + 1) % 5 ? "\"sliding_attention\"" : "\"full_attention\"");
  return R"({"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4",
    "eos_token_id": [1, 106], "image_token_id": 258880, "audio_token_id": 258881, "video_token_id": 258884,
    "tie_word_embeddings": true, "dtype": "bfloat16", "vision_config": {"hidden_size": 768},
    "text_config": {"model_type": "gemma4_text", "hidden_size": 1536, "intermediate_size": 6144,
      "num_hidden_layers": 35, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
      "global_head_dim": 512, "num_global_key_value_heads": null, "attention_k_eq_v": false,
      "sliding_window": 512, "vocab_size": 262144, "vocab_size_per_layer_input": 262144,
      "hidden_size_per_layer_input": 256, "num_kv_shared_layers": 20, "use_double_wide_mlp": true,
      "enable_moe_block": false, "num_experts": null, "top_k_experts": null, "moe_intermediate_size": null,
      "final_logit_softcapping": 30.0, "eos_token_id": 1, "max_position_embeddings": 131072,
      "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0,
                                             "rope_type": "proportional"},
                          "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}},
      "layer_types": [)" + types + "]}}";
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

std::string ErrorOf(const std::string& json) {
  auto r = ParseConfig(json);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(ConfigTest, ParsesPerLayerConfigLayout) {
  auto c = ParseConfig(kT1);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->per_layer_config_layout);
  EXPECT_FALSE(c->multimodal);
  EXPECT_EQ(c->hidden_size, 64);
  EXPECT_EQ(c->head_dim, 16);
  EXPECT_EQ(c->global_head_dim, 32);
  EXPECT_EQ(c->num_global_key_value_heads, 0);
  EXPECT_EQ(c->layer_num_kv_heads(2), 2);
  EXPECT_EQ(c->layer_head_dim(6), 32);
  EXPECT_EQ(c->layer_head_dim(5), 16);
  EXPECT_EQ(c->first_kv_shared_layer(), 4);
  EXPECT_EQ(c->kv_donor(3), -1);
  EXPECT_EQ(c->kv_donor(4), 3);
  EXPECT_EQ(c->kv_donor(5), 3);
  EXPECT_EQ(c->kv_donor(6), 2);
  EXPECT_EQ(c->layer_intermediate_size(3), 128);
  EXPECT_EQ(c->layer_intermediate_size(4), 256);
  EXPECT_EQ(c->rope_full.rope_type, "proportional");
  EXPECT_DOUBLE_EQ(c->rope_full.partial_rotary_factor, 0.25);
  EXPECT_DOUBLE_EQ(c->rope_sliding.rope_theta, 10000.0);
  EXPECT_DOUBLE_EQ(c->final_logit_softcapping, 30.0);
  EXPECT_EQ(c->torch_dtype, "float32");
  EXPECT_EQ(c->eos_token_ids, (std::vector<int64_t>{1}));
  EXPECT_FALSE(c->enable_moe_block);
}

TEST(ConfigTest, PerLayerConfigCarriesGlobalKvHeadsForKEqV) {
  std::string t3 = Replace(kT1, R"("per_layer_config": {"2": {"head_dim": 32}, "6": {"head_dim": 32}})",
                           R"("per_layer_config": {"2": {"head_dim": 64, "num_key_value_heads": 1},
                               "6": {"head_dim": 64, "num_key_value_heads": 1}})");
  t3 = Replace(t3, R"("attention_k_eq_v": false)", R"("attention_k_eq_v": true)");
  auto c = ParseConfig(t3);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->num_global_key_value_heads, 1);
  EXPECT_EQ(c->layer_num_kv_heads(6), 1);
  EXPECT_EQ(c->layer_num_kv_heads(5), 2);
  EXPECT_EQ(c->global_head_dim, 64);
  // Without k_eq_v a full-layer KV-head override is not expressible.
  std::string bad = Replace(t3, R"("attention_k_eq_v": true)", R"("attention_k_eq_v": false)");
  EXPECT_THAT(ErrorOf(bad), HasSubstr("without attention_k_eq_v"));
}

TEST(ConfigTest, ParsesReleasedMultimodalLayout) {
  auto c = ParseConfig(E2bConfig());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->multimodal);
  EXPECT_FALSE(c->per_layer_config_layout);
  EXPECT_EQ(c->architectures, (std::vector<std::string>{"Gemma4ForConditionalGeneration"}));
  EXPECT_EQ(c->eos_token_ids, (std::vector<int64_t>{1, 106}));
  EXPECT_EQ(c->image_token_id, 258880);
  EXPECT_EQ(c->global_head_dim, 512);
  EXPECT_EQ(c->num_global_key_value_heads, 0);
  EXPECT_EQ(c->kv_donor(15), 13);
  EXPECT_EQ(c->kv_donor(19), 14);
  EXPECT_EQ(c->kv_donor(34), 14);
  EXPECT_EQ(c->layer_intermediate_size(14), 6144);
  EXPECT_EQ(c->layer_intermediate_size(15), 12288);
  EXPECT_EQ(c->hidden_size_per_layer_input, 256);
  EXPECT_EQ(c->torch_dtype, "bfloat16");
}

TEST(ConfigTest, KEqVWithNullGlobalHeadsUsesKvHeads) {
  std::string s = Replace(E2bConfig(), R"("attention_k_eq_v": false)", R"("attention_k_eq_v": true)");
  auto c = ParseConfig(s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->num_global_key_value_heads, 1);
  s = Replace(s, R"("num_global_key_value_heads": null)", R"("num_global_key_value_heads": 3)");
  EXPECT_THAT(ErrorOf(s), HasSubstr("num_global_key_value_heads: 3 must be positive and divide"));
}

TEST(ConfigTest, AppliesReferenceDefaults) {
  auto c = ParseConfig(R"({"model_type": "gemma4_text", "num_hidden_layers": 8, "final_logit_softcapping": null})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->hidden_size, 2304);
  EXPECT_EQ(c->global_head_dim, 512);
  EXPECT_EQ(c->hidden_size_per_layer_input, 256);  // the big models' PLE default
  EXPECT_DOUBLE_EQ(c->final_logit_softcapping, 0.0);
  ASSERT_EQ(c->layer_types.size(), 8u);
  EXPECT_TRUE(c->is_sliding(4));
  EXPECT_FALSE(c->is_sliding(5));  // 5 sliding + 1 full
  EXPECT_FALSE(c->is_sliding(7));  // the last layer is forced to full
  EXPECT_EQ(c->rope_full.rope_type, "proportional");
}

TEST(ConfigTest, RejectsUnknownOrMissingModelType) {
  EXPECT_THAT(ErrorOf(R"({"model_type": "llama"})"), HasSubstr("config.json: model_type: unsupported model_type 'llama'"));
  EXPECT_THAT(ErrorOf(R"({"hidden_size": 4})"), HasSubstr("config.json: model_type: missing"));
  EXPECT_THAT(ErrorOf(R"({"model_type": "gemma4"})"), HasSubstr("text_config: missing"));
  EXPECT_THAT(ErrorOf("{"), HasSubstr("config.json: not valid JSON"));
  EXPECT_THAT(ErrorOf("[]"), HasSubstr("not a JSON object"));
}

TEST(ConfigTest, RejectsWrongTypesNamingTheField) {
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("hidden_size": 64)", R"("hidden_size": "64")")),
              HasSubstr("config.json: hidden_size: expected an integer, got string"));
  EXPECT_THAT(ErrorOf(Replace(E2bConfig(), R"("hidden_size": 1536)", R"("hidden_size": null)")),
              HasSubstr("config.json: text_config.hidden_size: must not be null"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("eos_token_id": 1)", R"("eos_token_id": [1, "x"])")),
              HasSubstr("eos_token_id: expected integers"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("use_double_wide_mlp": true)", R"("use_double_wide_mlp": 1)")),
              HasSubstr("use_double_wide_mlp: expected true or false"));
}

TEST(ConfigTest, RejectsInconsistentStructure) {
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("num_hidden_layers": 7)", R"("num_hidden_layers": 6)")),
              HasSubstr("layer_types: has 7 entries but num_hidden_layers is 6"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("sliding_attention", "sliding_attention", "full)", R"("local", "sliding_attention", "full)")),
              HasSubstr("unknown layer type 'local'"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("num_kv_shared_layers": 3)", R"("num_kv_shared_layers": 7)")),
              HasSubstr("num_kv_shared_layers: 7 must be in [0, num_hidden_layers=7)"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("num_kv_shared_layers": 3)", R"("num_kv_shared_layers": 5)")),
              HasSubstr("no earlier non-shared layer of the same type"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("num_key_value_heads": 2)", R"("num_key_value_heads": 3)")),
              HasSubstr("does not divide num_attention_heads"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("head_dim": 16)", R"("head_dim": 0)")), HasSubstr("head_dim: must be positive"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"({"2": {"head_dim": 32})", R"({"1": {"head_dim": 32}, "2": {"head_dim": 32})")),
              HasSubstr("sliding layer 1 overrides"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("6": {"head_dim": 32})", R"("6": {"head_dim": 48})")),
              HasSubstr("full-attention layer 6 differs"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("6": {"head_dim": 32})", R"("6": {"head_dim": 32, "sliding_window": 3})")),
              HasSubstr("per_layer_config.6.sliding_window: per-layer override not supported"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("6": {"head_dim": 32})", R"("9": {"head_dim": 32})")),
              HasSubstr("key '9' is not a layer index"));
}

TEST(ConfigTest, RejectsUnsupportedFeatures) {
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("enable_moe_block": false)", R"("enable_moe_block": true)")),
              HasSubstr("num_experts: must be set when enable_moe_block is true"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("rope_type": "default")", R"("rope_type": "yarn")")),
              HasSubstr("rope_parameters.sliding_attention.rope_type: 'yarn' is not supported"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("use_bidirectional_attention": null)", R"("use_bidirectional_attention": "all")")),
              HasSubstr("use_bidirectional_attention: 'all' is not supported"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("attention_bias": false)", R"("attention_bias": true)")),
              HasSubstr("attention_bias"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("gelu_pytorch_tanh")", R"("silu")")), HasSubstr("hidden_activation: 'silu'"));
  EXPECT_THAT(ErrorOf(Replace(kT1, R"("sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"})",
                              R"("sliding_attention": null)")),
              HasSubstr("rope_parameters.sliding_attention: missing"));
}

TEST(ConfigTest, LoadConfigNamesThePath) {
  std::string dir = testing::TempDir();
  auto missing = LoadConfig(JoinPath(dir, "no_such_model"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_model/config.json"));
  ASSERT_TRUE(WriteStringToFile(JoinPath(dir, "config.json"), Replace(kT1, R"("hidden_size": 64)", R"("hidden_size": -1)")).ok());
  auto bad = LoadConfig(dir);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(JoinPath(dir, "config.json") + ": hidden_size: must be positive"));
}

}  // namespace
}  // namespace gemmad::model::gemma4
