// `gemmad inspect` over broken checkpoints built in a temp dir from a good one: every defect gives
// exactly one line on stderr naming the file and the problem, exit code 2, never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "base/files.h"
#include "cli_runner.h"
#include "io/safetensors.h"
#include "io/safetensors_writer.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"

namespace gemmad {
namespace {

std::string TempPath(const std::string& name) { return TestTempPath(name); }

using ::testing::HasSubstr;
using testing_cli::RunGemmad;

std::string Good(const std::string& name, int shards, bool multimodal = false) {
  std::string dir = TempPath(name);
  model::gemma4::RandomCheckpointOptions o;
  o.num_shards = shards;
  o.multimodal = multimodal;
  EXPECT_TRUE(model::gemma4::WriteRandomCheckpoint(dir, model::gemma4::FindPreset("t1")->config, o).ok());
  return dir;
}

// Rewrites a safetensors file: drop `drop`, then add `extra` tensors (name -> dtype, shape).
void Rewrite(const std::string& path, const std::string& drop,
             const std::vector<std::tuple<std::string, std::string, std::vector<int64_t>>>& extra) {
  io::SafetensorsWriter w;
  {
    auto f = io::SafetensorsFile::Open(path);
    ASSERT_TRUE(f.ok());
    for (const auto& t : f->tensors()) {
      if (t.name == drop) continue;
      w.AddBytes(t.name, t.dtype_name, t.shape, std::string(reinterpret_cast<const char*>(f->Data(t)), t.size_bytes()));
    }
  }
  for (const auto& [name, dtype, shape] : extra) {
    io::TensorToWrite t{name, dtype, shape, nullptr};
    w.AddBytes(name, dtype, shape, std::string(t.size_bytes(), '\0'));
  }
  ASSERT_TRUE(w.WriteFile(path).ok());
}

// Expects exit 2 and one stderr line containing every fragment.
void ExpectOneLineError(const std::string& dir, const std::vector<std::string>& fragments) {
  auto r = RunGemmad({"inspect", dir});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  for (const auto& f : fragments) EXPECT_THAT(r.err, HasSubstr(f));
}

TEST(InspectTest, GoodCheckpointPrintsSummary) {
  std::string dir = Good("inspect_good", 2);
  auto r = RunGemmad({"inspect", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model_type"], "gemma4_text");
  EXPECT_EQ(j["tensor_prefix"], "model.");
  EXPECT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["layers"].size(), 7u);
  EXPECT_EQ(j["layers"][6]["kv_from"], 2);   // T1: the full receiver reads layer 2
  EXPECT_EQ(j["layers"][4]["kv_from"], 3);
  EXPECT_EQ(j["layers"][4]["ffn"], 256);     // double-wide
  EXPECT_EQ(j["dtypes"]["BF16"], j["tensors"]["text"]);
  // KV per token (bf16): sliding owners 0,1,3: 2*2*16*2 = 128 B each; full owner 2: 2*2*32*2 = 256 B.
  EXPECT_EQ(j["kv_cache"]["bytes_per_token_all_groups"], 3 * 128 + 256);
  EXPECT_GT(j["params"]["used"].get<int64_t>(), 0);
}

TEST(InspectTest, VisionTensorsAreSkipped) {
  std::string dir = Good("inspect_vision", 1, /*multimodal=*/true);
  Rewrite(JoinPath(dir, "model.safetensors"), "", {{"model.vision_tower.patch.weight", "BF16", {4, 4}},
                                                    {"model.embed_vision.embedding_projection.weight", "BF16", {2}}});
  auto r = RunGemmad({"inspect", dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"]["skipped_non_text"], 2);
  EXPECT_EQ(j["tensor_prefix"], "model.language_model.");
}

TEST(InspectTest, MissingShard) {
  std::string dir = Good("bad_missing_shard", 3);
  std::string shard = JoinPath(dir, "model-00002-of-00003.safetensors");
  ASSERT_EQ(::unlink(shard.c_str()), 0);
  ExpectOneLineError(dir, {shard, "does not exist"});
}

TEST(InspectTest, TruncatedFile) {
  std::string dir = Good("bad_truncated", 1);
  std::string f = JoinPath(dir, "model.safetensors");
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  ASSERT_EQ(::truncate(f.c_str(), st.st_size - 100), 0);
  ExpectOneLineError(dir, {f, "truncated file"});
  ASSERT_EQ(::truncate(f.c_str(), 5), 0);
  ExpectOneLineError(dir, {f, "too short"});
}

TEST(InspectTest, HeaderNotJson) {
  std::string dir = Good("bad_header", 1);
  std::string f = JoinPath(dir, "model.safetensors");
  auto bytes = ReadFileToString(f);
  ASSERT_TRUE(bytes.ok());
  std::string b = *bytes;
  b[8] = 'x';  // the JSON no longer starts with '{'
  ASSERT_TRUE(WriteStringToFile(f, b).ok());
  ExpectOneLineError(dir, {f, "header is not JSON"});
  b[8] = '{';
  b[20] = '\x01';  // a control byte inside the JSON
  ASSERT_TRUE(WriteStringToFile(f, b).ok());
  ExpectOneLineError(dir, {f, "not valid JSON"});
}

TEST(InspectTest, MissingAndExtraTensors) {
  std::string dir = Good("bad_tensors", 1);
  std::string f = JoinPath(dir, "model.safetensors");
  Rewrite(f, "model.layers.3.mlp.up_proj.weight", {});
  ExpectOneLineError(dir, {f, "missing tensor 'model.layers.3.mlp.up_proj.weight'"});
  dir = Good("bad_extra", 1);
  f = JoinPath(dir, "model.safetensors");
  Rewrite(f, "", {{"model.layers.0.mlp.bias", "BF16", {64}}});
  ExpectOneLineError(dir, {f, "unexpected tensor 'model.layers.0.mlp.bias'"});
}

TEST(InspectTest, WrongShapeAndDtype) {
  std::string dir = Good("bad_shape", 1);
  std::string f = JoinPath(dir, "model.safetensors");
  Rewrite(f, "model.norm.weight", {{"model.norm.weight", "BF16", {65}}});
  ExpectOneLineError(dir, {f, "tensor 'model.norm.weight' has shape [65], config.json implies [64]"});
  Rewrite(f, "model.norm.weight", {{"model.norm.weight", "I32", {64}}});
  ExpectOneLineError(dir, {f, "tensor 'model.norm.weight' has dtype I32"});
}

TEST(InspectTest, BadConfig) {
  std::string dir = Good("bad_config", 1);
  std::string cfg = JoinPath(dir, "config.json");
  ASSERT_TRUE(WriteStringToFile(cfg, R"({"model_type": "llama", "hidden_size": 64})").ok());
  ExpectOneLineError(dir, {cfg, "unsupported model_type 'llama'"});
  ASSERT_TRUE(WriteStringToFile(cfg, "{ not json").ok());
  ExpectOneLineError(dir, {cfg, "not valid JSON"});
  ASSERT_EQ(::unlink(cfg.c_str()), 0);
  ExpectOneLineError(dir, {cfg, "No such file"});
  ExpectOneLineError(JoinPath(dir, "nowhere"), {"nowhere", "does not exist"});
}

TEST(InspectTest, BrokenIndex) {
  std::string dir = Good("bad_index", 2);
  std::string index = JoinPath(dir, "model.safetensors.index.json");
  ASSERT_TRUE(WriteStringToFile(index, R"({"weight_map": ["x"]})").ok());
  ExpectOneLineError(dir, {index, "weight_map"});
}

TEST(InspectTest, Usage) {
  EXPECT_EQ(RunGemmad({"inspect"}).exit_code, 2);
  EXPECT_EQ(RunGemmad({"inspect", "a", "b"}).exit_code, 2);
  EXPECT_EQ(RunGemmad({"inspect", "--help"}).exit_code, 0);
}

}  // namespace
}  // namespace gemmad
