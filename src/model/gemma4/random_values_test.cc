// The random checkpoint's values: each tensor draws its own stream (seeded by its name), except the
// tower clip bounds that the released checkpoints share; text projections never share values.
#include "model/gemma4/random_values.h"

#include <gtest/gtest.h>

#include <vector>

namespace gemmad::model::gemma4 {
namespace {

std::vector<float> Draw(const std::string& name, int64_t n = 64) {
  RandomValueStream s(name, {8, 8}, 7);
  std::vector<float> v(static_cast<size_t>(n));
  s.Next(n, v.data());
  return v;
}

TEST(RandomValues, TextProjectionsDrawTheirOwnValues) {
  EXPECT_NE(Draw("layers.0.self_attn.k_proj.weight"), Draw("layers.0.self_attn.v_proj.weight"));
  EXPECT_NE(Draw("layers.0.mlp.gate_proj.weight"), Draw("layers.0.mlp.up_proj.weight"));
  EXPECT_NE(Draw("audio_tower.layers.0.self_attn.q_proj.linear.weight"),
            Draw("audio_tower.layers.0.self_attn.k_proj.linear.weight"));
  EXPECT_EQ(Draw("layers.0.self_attn.k_proj.weight"), Draw("layers.0.self_attn.k_proj.weight"));  // deterministic
  // Shared clip bounds, as the released towers have them.
  EXPECT_EQ(Draw("audio_tower.layers.0.self_attn.k_proj.input_min"), Draw("audio_tower.layers.0.self_attn.q_proj.input_min"));
  EXPECT_EQ(Draw("vision_tower.encoder.layers.0.mlp.up_proj.output_max"),
            Draw("vision_tower.encoder.layers.0.mlp.gate_proj.output_max"));
}

TEST(RandomValues, ChunksConcatenateToOneDraw) {
  RandomValueStream s("layers.1.mlp.down_proj.weight", {8, 8}, 3);
  std::vector<float> a(64);
  s.Next(32, a.data());
  s.Next(32, a.data() + 32);
  RandomValueStream t("layers.1.mlp.down_proj.weight", {8, 8}, 3);
  std::vector<float> b(64);
  t.Next(64, b.data());
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace gemmad::model::gemma4
