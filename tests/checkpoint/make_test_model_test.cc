// `gemmad make-test-model`: presets, flags, sharding, the e2e model (full vocabulary + Gemma 4
// tokenizer + eos [1, 106, 50], a tiny audio tower whose every path is active) and the refusal of
// 26B/31B on this machine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "base/files.h"
#include "cli_runner.h"
#include "model/gemma4/audio_tower.h"
#include "model/gemma4/checkpoint.h"
#include "model/safetensors_source.h"

namespace gemmad {
namespace {

std::string TempPath(const std::string& name) { return TestTempPath(name); }

using ::testing::HasSubstr;
using testing_cli::RunGemmad;

TEST(MakeTestModelTest, ShardedF32ModelInspects) {
  std::string dir = TempPath("mtm_t2");
  auto r = RunGemmad({"make-test-model", dir, "--preset", "t2", "--dtype", "f32", "--shards", "3", "--seed", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["shards"], 3);
  EXPECT_TRUE(FileExists(JoinPath(dir, "model.safetensors.index.json")));
  auto i = RunGemmad({"inspect", dir});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  auto j = nlohmann::json::parse(i.out);
  EXPECT_EQ(j["dtypes"]["F32"], j["tensors"]["text"]);
  EXPECT_EQ(j["files"].size(), 3u);
  EXPECT_EQ(j["layers"][2]["k_eq_v"], true);
  EXPECT_EQ(j["layers"][2]["kv_heads"], 1);
}

TEST(MakeTestModelTest, EndToEndModel) {
  std::string dir = TempPath("mtm_e2e");
  auto r = RunGemmad({"make-test-model", dir, "--preset", "e2e", "--tokenizer-dir",
                      std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(FileExists(JoinPath(dir, "tokenizer.json")));
  EXPECT_TRUE(FileExists(JoinPath(dir, "tokenizer_config.json")));
  EXPECT_FALSE(FileExists(JoinPath(dir, "chat_template.jinja")));
  auto ck = model::gemma4::Checkpoint::Open(dir);
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  const auto& c = ck->config();
  EXPECT_EQ(c.vocab_size, 262144);
  EXPECT_GE(c.max_position_embeddings, 4096);
  EXPECT_GT(c.num_kv_shared_layers, 0);
  EXPECT_GT(c.hidden_size_per_layer_input, 0);
  EXPECT_EQ(ck->generation_config().eos_token_ids, (std::vector<int64_t>{1, 106, 50}));
  EXPECT_EQ(ck->Tensor("embed_tokens.weight").dtype, tensor::DType::kBF16);
  // The audio tower (16 mels, the released chunking): loads, and its rows vary over a clip.
  ASSERT_TRUE(c.audio.has_value());
  EXPECT_EQ(c.audio->num_mels(), 16);
  auto src = model::OpenSafetensorsDir(dir);
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto tower = model::gemma4::AudioTower::Load(std::shared_ptr<const model::WeightSource>(std::move(src).value()),
                                               *c.audio, c.hidden_size);
  ASSERT_TRUE(tower.ok()) << tower.status().ToString();
  const int64_t frames = 99, rows = model::gemma4::AudioTower::NumSoftTokens(frames);
  std::vector<float> feats(static_cast<size_t>(frames * 16)), out(static_cast<size_t>(rows * c.hidden_size));
  for (size_t i = 0; i < feats.size(); ++i) feats[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i))) * 3;
  ASSERT_TRUE((*tower)->Encode({}, frames, feats, out).ok());
  for (float v : out) ASSERT_TRUE(std::isfinite(v));
  EXPECT_NE(std::vector<float>(out.begin(), out.begin() + c.hidden_size),
            std::vector<float>(out.end() - c.hidden_size, out.end()));
}

TEST(MakeTestModelTest, MultimodalPrefixWithUnusedKv) {
  std::string dir = TempPath("mtm_t3_mm");
  auto r = RunGemmad({"make-test-model", dir, "--preset", "t3", "--prefix", "multimodal", "--unused-kv-tensors"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ck = model::gemma4::Checkpoint::Open(dir);
  ASSERT_TRUE(ck.ok()) << ck.status().ToString();
  EXPECT_EQ(ck->prefix(), "model.language_model.");
  EXPECT_NE(ck->Find("layers.5.self_attn.k_proj.weight"), nullptr);  // present, never read
  EXPECT_GT(ck->stats().unused_text_bytes, 0u);
}

// Preset g1: a Gemma 3 (gemma3_text) checkpoint that inspects as one; it has no multimodal layout.
TEST(MakeTestModelTest, Gemma3Preset) {
  std::string dir = TempPath("mtm_g1");
  auto r = RunGemmad({"make-test-model", dir, "--preset", "g1", "--dtype", "f16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto i = RunGemmad({"inspect", dir});
  ASSERT_EQ(i.exit_code, 0) << i.err;
  auto j = nlohmann::json::parse(i.out);
  EXPECT_EQ(j["model_type"], "gemma3_text");
  EXPECT_EQ(j["architectures"], nlohmann::json::array({"Gemma3ForCausalLM"}));
  EXPECT_EQ(j["layers"].back()["type"], "sliding");
  auto g = RunGemmad({"generate", dir, "--prompt-ids", "2,5,9,11,3,7,8,1,4,6,10,12", "--max-tokens", "4", "--ignore-eos"});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  auto mm = RunGemmad({"make-test-model", TempPath("mtm_g1_mm"), "--preset", "g1", "--prefix", "multimodal"});
  EXPECT_NE(mm.exit_code, 0);
  EXPECT_THAT(mm.err, HasSubstr("no multimodal layout"));
}

TEST(MakeTestModelTest, LargePresetsAreRefusedWithAnEstimate) {
  auto r = RunGemmad({"make-test-model", TempPath("mtm_31b"), "--preset", "31b"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("30.697 B text parameters"));
  EXPECT_THAT(r.err, HasSubstr("--force"));
  EXPECT_FALSE(IsDirectory(TempPath("mtm_31b")));
  r = RunGemmad({"make-test-model", TempPath("mtm_26b"), "--preset", "26b", "--dtype", "f32"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("GB of f32"));
}

TEST(MakeTestModelTest, UsageErrors) {
  std::string dir = TempPath("mtm_usage");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"make-test-model"},
           {"make-test-model", dir},
           {"make-test-model", dir, "--preset", "t9"},
           {"make-test-model", dir, "--preset", "t1", "--dtype", "q4"},
           {"make-test-model", dir, "--preset", "t1", "--shards", "x"},
           {"make-test-model", dir, "--preset", "t1", "--prefix", "vision"},
           {"make-test-model", dir, "--preset", "t1", "--bogus"}}) {
    auto r = RunGemmad(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_THAT(r.err, HasSubstr("gemmad make-test-model:"));
  }
}

}  // namespace
}  // namespace gemmad
