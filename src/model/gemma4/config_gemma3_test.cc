// Tests of ParseConfig on `gemma3_text` configs: both field layouts (rope_parameters / the older
// rope_theta, rope_local_base_freq, rope_scaling, sliding_window_pattern) resolved as transformers
// 5.25's Gemma3TextConfig resolves them, the Gemma 3 switches, the defaults, the writer's round
// trip, linear RoPE tables and every rejection.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model/gemma4/config.h"
#include "model/gemma4/config_writer.h"
#include "model/gemma4/rope_table.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {
namespace {

using ::testing::HasSubstr;

// tests/golden/gemma3/g1/config.json as transformers 5.25 saved it (rope_parameters layout).
constexpr char kG1[] = R"({
  "_sliding_window_pattern": 3, "architectures": ["Gemma3ForCausalLM"], "attention_bias": false,
  "attention_dropout": 0.0, "attn_logit_softcapping": null, "bos_token_id": 2, "dtype": "float32",
  "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 32, "hidden_activation": "gelu_pytorch_tanh",
  "hidden_size": 64, "initializer_range": 0.02, "intermediate_size": 128,
  "layer_types": ["sliding_attention", "sliding_attention", "full_attention", "sliding_attention",
                  "sliding_attention", "full_attention", "sliding_attention"],
  "max_position_embeddings": 4096, "model_type": "gemma3_text", "num_attention_heads": 2,
  "num_hidden_layers": 7, "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 24,
  "rms_norm_eps": 1e-06,
  "rope_parameters": {"full_attention": {"factor": 8.0, "rope_theta": 1000000.0, "rope_type": "linear"},
                      "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}},
  "sliding_window": 8, "sliding_window_pattern": 3, "tie_word_embeddings": true,
  "transformers_version": "5.25.0", "use_bidirectional_attention": false, "use_cache": true, "vocab_size": 512})";

// The same model in the released checkpoints' older layout (tests/golden/gemma3/g1/released_config.json).
constexpr char kG1Released[] = R"({
  "architectures": ["Gemma3ForCausalLM"], "attn_logit_softcapping": null, "bos_token_id": 2, "eos_token_id": 1,
  "final_logit_softcapping": null, "head_dim": 32, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 64,
  "intermediate_size": 128, "max_position_embeddings": 4096, "model_type": "gemma3_text",
  "num_attention_heads": 2, "num_hidden_layers": 7, "num_key_value_heads": 1, "pad_token_id": 0,
  "query_pre_attn_scalar": 24, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0,
  "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_theta": 1000000.0, "sliding_window": 8,
  "sliding_window_pattern": 3, "tie_word_embeddings": true, "vocab_size": 512})";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

std::string ErrorOf(const std::string& json) {
  auto c = ParseConfig(json);
  EXPECT_FALSE(c.ok()) << json;
  return c.ok() ? "" : c.status().ToString();
}

void ExpectG1(const Config& c) {
  EXPECT_EQ(c.family, Family::kGemma3);
  EXPECT_EQ(c.model_type, "gemma3_text");
  EXPECT_EQ(c.hidden_size, 64);
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_EQ(c.global_head_dim, 32);
  EXPECT_EQ(c.num_key_value_heads, 1);
  EXPECT_EQ(c.sliding_window, 8);
  const std::vector<LayerType> want = {LayerType::kSliding, LayerType::kSliding, LayerType::kFull, LayerType::kSliding,
                                       LayerType::kSliding, LayerType::kFull, LayerType::kSliding};
  EXPECT_EQ(c.layer_types, want);  // the last layer stays sliding
  EXPECT_DOUBLE_EQ(c.query_pre_attn_scalar, 24.0);
  EXPECT_DOUBLE_EQ(c.attention_scale, 1.0 / std::sqrt(24.0));
  EXPECT_FALSE(c.v_norm);
  EXPECT_TRUE(c.norm_weight_plus_one);
  EXPECT_FALSE(c.has_layer_scalar);
  EXPECT_DOUBLE_EQ(c.final_logit_softcapping, 0.0);
  EXPECT_EQ(c.hidden_size_per_layer_input, 0);
  EXPECT_FALSE(c.enable_moe_block);
  EXPECT_EQ(c.num_kv_shared_layers, 0);
  EXPECT_FALSE(c.attention_k_eq_v);
  EXPECT_EQ(c.rope_full.rope_type, "linear");
  EXPECT_DOUBLE_EQ(c.rope_full.factor, 8.0);
  EXPECT_DOUBLE_EQ(c.rope_full.rope_theta, 1e6);
  EXPECT_EQ(c.rope_sliding.rope_type, "default");
  EXPECT_DOUBLE_EQ(c.rope_sliding.rope_theta, 1e4);
  EXPECT_EQ(c.architectures, std::vector<std::string>{"Gemma3ForCausalLM"});
}

TEST(Gemma3ConfigTest, ParsesBothLayoutsToTheSameModel) {
  for (const char* text : {kG1, kG1Released}) {
    auto c = ParseConfig(text);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ExpectG1(*c);
  }
}

TEST(Gemma3ConfigTest, SpecHasNoGemma4OnlyTensors) {
  auto c = ParseConfig(kG1);
  ASSERT_TRUE(c.ok());
  for (const WeightSpec& w : TextWeightSpec(*c)) {
    EXPECT_EQ(w.name.find("layer_scalar"), std::string::npos) << w.name;
    EXPECT_EQ(w.name.find("per_layer"), std::string::npos) << w.name;
    EXPECT_TRUE(w.used || w.name == "lm_head.weight") << w.name;
  }
  // embed + norm + 7 layers x (4 norms, q/k/v/o, q_norm, k_norm, gate/up/down) + the tied lm_head.
  EXPECT_EQ(TextWeightSpec(*c).size(), 2u + 7u * 13u + 1u);
}

TEST(Gemma3ConfigTest, AppliesGemma3TextConfigDefaults) {
  auto c = ParseConfig(R"({"model_type": "gemma3_text", "num_hidden_layers": 26})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->vocab_size, 262208);
  EXPECT_EQ(c->hidden_size, 2304);
  EXPECT_EQ(c->head_dim, 256);
  EXPECT_EQ(c->global_head_dim, 256);
  EXPECT_EQ(c->sliding_window, 4096);
  EXPECT_DOUBLE_EQ(c->attention_scale, 1.0 / 16.0);  // query_pre_attn_scalar 256
  EXPECT_EQ(c->eos_token_ids, std::vector<int64_t>{1});
  EXPECT_EQ(c->bos_token_id, 2);
  ASSERT_EQ(c->layer_types.size(), 26u);
  for (int64_t l = 0; l < 26; ++l) EXPECT_EQ(c->is_sliding(l), (l + 1) % 6 != 0) << l;  // 1B: last layer sliding
  EXPECT_EQ(c->rope_full.rope_type, "default");
  EXPECT_DOUBLE_EQ(c->rope_full.rope_theta, 1e6);
  EXPECT_DOUBLE_EQ(c->rope_sliding.rope_theta, 1e4);
}

TEST(Gemma3ConfigTest, ResolvesRopeAsTransformersDoes) {
  // rope_scaling is merged into rope_parameters.full_attention (dict.update).
  auto merged = ParseConfig(Replace(Replace(kG1, R"("rope_type": "linear")", R"("rope_type": "default")"),
                                    R"("rms_norm_eps")", R"("rope_scaling": {"rope_type": "linear", "factor": 2.0}, "rms_norm_eps")"));
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->rope_full.rope_type, "linear");
  EXPECT_DOUBLE_EQ(merged->rope_full.factor, 2.0);
  // Top-level thetas fill entries without rope_theta only.
  auto thetas = ParseConfig(Replace(Replace(kG1, R"("factor": 8.0, "rope_theta": 1000000.0, )", R"("factor": 8.0, )"),
                                    R"("rms_norm_eps")", R"("rope_theta": 5000.0, "rope_local_base_freq": 7.0, "rms_norm_eps")"));
  ASSERT_TRUE(thetas.ok()) << thetas.status().ToString();
  EXPECT_DOUBLE_EQ(thetas->rope_full.rope_theta, 5000.0);
  EXPECT_DOUBLE_EQ(thetas->rope_sliding.rope_theta, 1e4);
  // A legacy {"type": "linear"} rope_scaling stays default in transformers 5.25: the default
  // rope_type set before the merge wins over the "type" alias.
  auto alias = ParseConfig(Replace(kG1Released, R"("rope_type": "linear")", R"("type": "linear")"));
  ASSERT_TRUE(alias.ok()) << alias.status().ToString();
  EXPECT_EQ(alias->rope_full.rope_type, "default");
  // ... but it does when the full_attention entry exists without a rope_type.
  auto typed = ParseConfig(Replace(Replace(kG1, R"(, "rope_type": "linear")", ""), R"("factor": 8.0, )", R"("type": "linear", "factor": 8.0, )"));
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(typed->rope_full.rope_type, "linear");
  // Without any RoPE fields: default on both, θ 1e6 / 1e4.
  auto none = ParseConfig(Replace(kG1, R"("rope_parameters")", R"("unused")"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->rope_full.rope_type, "default");
  EXPECT_DOUBLE_EQ(none->rope_full.rope_theta, 1e6);
}

TEST(Gemma3ConfigTest, LinearRopeDividesEveryDefaultFrequency) {
  RopeParams def{"default", 1e6, 1.0, 1.0}, lin{"linear", 1e6, 1.0, 8.0};
  auto a = RopeInvFreq(def, 32), b = RopeInvFreq(lin, 32);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(b->size(), 16u);
  EXPECT_FLOAT_EQ((*b)[0], 1.0f / 8.0f);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ((*b)[i], (*a)[i] / 8.0f) << i;
}

TEST(Gemma3ConfigTest, WriterRoundTrips) {
  auto c = ParseConfig(kG1Released);
  ASSERT_TRUE(c.ok());
  const std::string json = ConfigToJson(*c, ConfigLayout::kTextOnly, "bfloat16");
  EXPECT_THAT(json, HasSubstr(R"("model_type": "gemma3_text")"));
  auto back = ParseConfig(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << json;
  ExpectG1(*back);
  EXPECT_EQ(back->torch_dtype, "bfloat16");
}

TEST(Gemma3ConfigTest, RejectsWhatIsNotSupported) {
  EXPECT_THAT(ErrorOf(R"({"model_type": "gemma3", "text_config": {}, "vision_config": {}})"),
              HasSubstr("model_type: gemma3 (Gemma3ForConditionalGeneration, with a vision tower) is not supported"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("attn_logit_softcapping": null)", R"("attn_logit_softcapping": 50.0)")),
              HasSubstr("attn_logit_softcapping: attention logit soft-capping is not supported"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("use_bidirectional_attention": false)", R"("use_bidirectional_attention": true)")),
              HasSubstr("use_bidirectional_attention: true is not supported"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("rope_type": "linear")", R"("rope_type": "yarn")")),
              HasSubstr("rope_parameters.full_attention.rope_type: 'yarn' is not supported for gemma3_text"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("factor": 8.0, )", "")), HasSubstr("full_attention.factor: missing"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("query_pre_attn_scalar": 24)", R"("query_pre_attn_scalar": 0)")),
              HasSubstr("query_pre_attn_scalar: must be positive"));
  EXPECT_THAT(ErrorOf(Replace(Replace(kG1, R"("full_attention", "sliding_attention",)", R"("sliding_attention", "sliding_attention",)"),
                              R"("full_attention", "sliding_attention"])", R"("sliding_attention", "sliding_attention"])")),
              HasSubstr("layer_types: has no full_attention layer"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("attention_bias": false)", R"("attention_bias": true)")), HasSubstr("attention_bias"));
  EXPECT_THAT(ErrorOf(Replace(kG1, R"("head_dim": 32)", R"("head_dim": 31)")), HasSubstr("head_dim: must be even"));
}

}  // namespace
}  // namespace gemmad::model::gemma4
