// GGUF files made by llama.cpp's own converter from the reference checkpoints
// (scripts/golden/make_gguf_goldens.py -> tests/golden/gguf/) through gemmad's GGUF weight source:
// - f32 files give the very logits of the safetensors checkpoint they were converted from (the
//   same numbers reach the same kernels), hence the transformers goldens within their tolerance;
// - q8_0 files (Q8_0 matrices, F16 where the converter keeps f16) give transformers' fp32 logits
//   of exactly their dequantized weights (<model>_q8_0.logits.*: gguf-py dequantizes, transformers
//   runs) within the safetensors path's tolerance, and really are lossy against the f32 goldens.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gemma4_golden.h"
#include "golden_compare.h"
#include "model/gemma4/model.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

using golden::Gemma4Golden;
using testing::SequenceRunner;

// The safetensors path's bound against transformers (tests/model/golden_test.cc).
constexpr double kLogitTol = 5e-4;

std::string GgufPath(const std::string& model, const std::string& type) {
  return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf/gemma4_" + model + "_" + type + ".gguf";
}

// The prefill logits of <model>_q8_0.logits.{json,bin} (gemmad-golden-v1, f32 arrays).
std::vector<float> ReferenceLogits(const std::string& model, const std::string& prompt) {
  const std::string stem = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf/gemma4_" + model + "_q8_0.logits";
  std::ifstream jf(stem + ".json");
  std::stringstream js;
  js << jf.rdbuf();
  const auto index = nlohmann::json::parse(js.str());
  const auto& a = index["arrays"][prompt + ".prefill_logits"];
  std::ifstream bf(stem + ".bin", std::ios::binary);
  std::vector<float> out(a["bytes"].get<size_t>() / 4);
  bf.seekg(a["offset"].get<std::streamoff>());
  bf.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * 4));
  return out;
}

std::unique_ptr<Model> LoadOrDie(const std::string& path) {
  auto m = Model::Load(path);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

std::vector<float> Prefill(Model& m, const std::vector<int64_t>& ids) {
  SequenceRunner r(m, 16, 8);
  return r.Step(0, std::vector<int32_t>(ids.begin(), ids.end()), true, nullptr);
}

class GgufGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(GgufGolden, F32FileGivesTheSafetensorsLogits) {
  auto g = Gemma4Golden::Load(GetParam(), "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto dir = g->CheckpointDir();
  ASSERT_TRUE(dir.ok());
  auto st = LoadOrDie(*dir);
  auto gguf = LoadOrDie(GgufPath(GetParam(), "f32"));
  ASSERT_TRUE(st && gguf);
  EXPECT_EQ(gguf->config().num_hidden_layers, st->config().num_hidden_layers);
  EXPECT_EQ(gguf->config().layer_types, st->config().layer_types);
  for (const auto& p : g->prompts()) {
    SCOPED_TRACE(p.name);
    const std::vector<float> a = Prefill(*gguf, p.token_ids), b = Prefill(*st, p.token_ids);
    ASSERT_EQ(a, b);  // bit for bit
    auto want = g->Array(p.name + ".prefill_logits");
    ASSERT_TRUE(want.ok());
    const auto s = testing::Compare(a.data(), want->values.data(), want->rows(), g->vocab_size());
    EXPECT_LE(s.max_abs, kLogitTol);
  }
}

TEST_P(GgufGolden, Q8FileGivesTheReferenceLogitsOfItsWeights) {
  auto g = Gemma4Golden::Load(GetParam(), "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto gguf = LoadOrDie(GgufPath(GetParam(), "q8_0"));
  ASSERT_TRUE(gguf);
  const int64_t V = g->vocab_size();
  for (const auto& p : g->prompts()) {
    SCOPED_TRACE(p.name);
    const std::vector<float> got = Prefill(*gguf, p.token_ids);
    const std::vector<float> ref = ReferenceLogits(GetParam(), p.name);
    ASSERT_EQ(got.size(), ref.size());
    const int64_t T = static_cast<int64_t>(p.token_ids.size());
    const auto s = testing::Compare(got.data(), ref.data(), T, V);
    EXPECT_LE(s.max_abs, kLogitTol);
    auto f32 = g->Array(p.name + ".prefill_logits");
    ASSERT_TRUE(f32.ok());
    const auto lossy = testing::Compare(got.data(), f32->values.data(), T, V);
    std::printf("[gguf-q8] %s %s: vs its reference max abs %.2e; vs the f32 golden mean abs %.3f\n",
                GetParam().c_str(), p.name.c_str(), s.max_abs, lossy.mean_abs);
    EXPECT_GT(lossy.mean_abs, 10 * kLogitTol);  // the file was not silently read as the f32 weights
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GgufGolden, ::testing::Values("t1", "t2"));

}  // namespace
}  // namespace gemmad::model::gemma4
