// compressed-tensors quantization_config parsing and vLLM's matching order.
#include "model/ct_config.h"

#include <gtest/gtest.h>

namespace gemmad::model {
namespace {

constexpr const char* kW4A16 = R"({
  "quant_method": "compressed-tensors", "format": "pack-quantized", "quantization_status": "compressed",
  "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "symmetric": true,
                    "strategy": "group", "group_size": 32, "dynamic": false}, "input_activations": null}},
  "ignore": ["lm_head", "re:.*router.*", "model.layers.0.mlp.down_proj"], "kv_cache_scheme": null,
  "sparsity_config": {}, "transform_config": {}, "some_future_key": 1})";

TEST(CtConfig, ParsesAQatW4A16Config) {
  auto c = ParseCtConfig(kW4A16);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->compressed());
  ASSERT_EQ(c->groups.size(), 1u);
  const CtArgs& w = *c->groups[0].weights;
  EXPECT_EQ(w.num_bits, 4);
  EXPECT_EQ(w.strategy, CtStrategy::kGroup);
  EXPECT_EQ(w.group_size, 32);
  EXPECT_EQ(w.ToString(), "int4 group 32 symmetric");
  EXPECT_EQ(c->groups[0].format, "pack-quantized");  // the global format
  EXPECT_FALSE(c->groups[0].input_activations);
  const std::string q = "model.layers.3.self_attn.q_proj";
  EXPECT_EQ(c->SchemeFor(q, CtKindOf(q)), &c->groups[0]);
  EXPECT_EQ(c->SchemeFor("model.layers.0.mlp.down_proj", CtModuleKind::kLinear), nullptr);  // exact ignore
  EXPECT_EQ(c->SchemeFor("model.layers.1.mlp.down_proj", CtModuleKind::kLinear), &c->groups[0]);
  EXPECT_EQ(c->SchemeFor("model.layers.0.router.proj", CtModuleKind::kRouter), nullptr);
  EXPECT_EQ(c->SchemeFor("lm_head", CtKindOf("lm_head")), nullptr);
  EXPECT_EQ(c->SchemeFor("model.embed_tokens", CtKindOf("model.embed_tokens")), nullptr);  // "Linear" is no embedding
}

TEST(CtConfig, RegexesAreAnchoredAtTheStartOnlyAndNamesComeBeforeClasses) {
  auto c = ParseCtConfig(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
    "config_groups": {
      "a": {"targets": ["Linear"], "weights": {"num_bits": 8, "strategy": "channel"}},
      "b": {"targets": ["re:model\\.layers\\.\\d+\\.mlp\\.down"], "weights": {"num_bits": 2, "strategy": "channel"}},
      "c": {"targets": ["Embedding"], "weights": {"num_bits": 4, "group_size": 64}}},
    "ignore": ["re:model\\.layers\\.1\\."]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->groups.size(), 3u);
  EXPECT_EQ(c->groups[0].name, "a");  // file order, not sorted
  EXPECT_EQ(c->SchemeFor("model.layers.3.mlp.down_proj", CtModuleKind::kLinear)->name, "b");  // prefix match
  EXPECT_EQ(c->SchemeFor("model.layers.3.mlp.up_proj", CtModuleKind::kLinear)->name, "a");
  EXPECT_EQ(c->SchemeFor("x.model.layers.3.mlp.down_proj", CtModuleKind::kLinear)->name, "a");  // anchored at the start
  EXPECT_EQ(c->SchemeFor("model.layers.1.mlp.down_proj", CtModuleKind::kLinear), nullptr);
  EXPECT_EQ(c->SchemeFor("model.embed_tokens", CtModuleKind::kEmbedding)->name, "c");
  EXPECT_EQ(c->groups[2].weights->strategy, CtStrategy::kGroup);  // inferred from group_size
  EXPECT_EQ(c->groups[0].weights->strategy, CtStrategy::kChannel);
}

TEST(CtConfig, PresetsExpand) {
  auto c = ParseCtConfig(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
    "config_groups": {"FP8_DYNAMIC": ["Linear"], "W4A16": ["re:.*mlp.*"]}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->groups.size(), 2u);
  EXPECT_TRUE(c->groups[0].weights->is_float);
  EXPECT_EQ(c->groups[0].input_activations->strategy, CtStrategy::kToken);
  EXPECT_EQ(c->groups[1].weights->ToString(), "int4 group 128 symmetric");
}

TEST(CtConfig, RefusesWhatTheLibraryRefuses) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"quant_method": "awq"})", "compressed-tensors"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
         "weights": {"num_bits": 4, "strategy": "group"}}}})", "group_size"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
         "weights": {"num_bits": 4, "strategy": "channel", "group_size": 32}}}})", "group_size 32"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
         "weights": {"num_bits": 12}}}})", "num_bits 12"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["Linear"],
         "input_activations": {"num_bits": 8, "strategy": "token"}}}})", "dynamic"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": ["re:(("]}}})", "regular expression"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": []}}})", "no targets"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"NOPE": ["Linear"]}})", "unknown preset"},
      {R"({"quant_method": "compressed-tensors", "sparsity_config": {"format": "sparse-24"}})", "sparsity_config"},
      {R"([1, 2])", "not a JSON object"},
  };
  for (const auto& [text, needle] : cases) {
    auto c = ParseCtConfig(text);
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_NE(c.status().message().find(needle), std::string::npos) << c.status().message();
  }
}

}  // namespace
}  // namespace gemmad::model
