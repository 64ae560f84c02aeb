// --dtype (ModelOptions::compute_dtype): on a bf16 checkpoint the default compute dtype is bf16
// (bf16 KV cache, bf16-rounded embedding scales, as transformers); float32 makes both f32, which
// doubles the KV bytes per block and changes the logits; weights stay as stored.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

namespace fs = std::filesystem;

std::string T1Bf16() {
  static const std::string dir = [] {
    const fs::path d = fs::path(::testing::TempDir()) / ("gemmad_dtype_" + std::to_string(getpid()));
    auto preset = FindPreset("t1");
    EXPECT_TRUE(preset.ok());
    RandomCheckpointOptions opt;
    opt.seed = 11;
    opt.dtype = tensor::DType::kBF16;
    EXPECT_TRUE(WriteRandomCheckpoint(d.string(), preset->config, opt).ok());
    return d.string();
  }();
  return dir;
}

std::unique_ptr<Model> Load(std::optional<tensor::DType> dtype) {
  ModelOptions mo;
  mo.compute_dtype = dtype;
  auto m = Model::Load(T1Bf16(), {}, mo);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? std::move(m).value() : nullptr;
}

TEST(ComputeDtype, Float32DoublesTheKvCacheAndChangesTheLogits) {
  auto autod = Load(std::nullopt), bf16 = Load(tensor::DType::kBF16), f32 = Load(tensor::DType::kF32);
  ASSERT_TRUE(autod && bf16 && f32);
  EXPECT_EQ(autod->compute_dtype(), tensor::DType::kBF16);  // the checkpoint's embedding dtype
  EXPECT_EQ(bf16->compute_dtype(), tensor::DType::kBF16);
  EXPECT_EQ(f32->compute_dtype(), tensor::DType::kF32);
  const KvCacheSpec a = autod->MakeKvCacheSpec(4), f = f32->MakeKvCacheSpec(4);
  ASSERT_EQ(a.groups.size(), f.groups.size());
  for (size_t g = 0; g < a.groups.size(); ++g) {
    EXPECT_EQ(a.groups[g].dtype, tensor::DType::kBF16);
    EXPECT_EQ(f.groups[g].dtype, tensor::DType::kF32);
    EXPECT_EQ(f.groups[g].bytes_per_block(), 2 * a.groups[g].bytes_per_block());
  }
  const std::vector<int32_t> prompt = {2, 5, 9, 11, 3, 7, 8, 1};
  testing::SequenceRunner ra(*autod, 4, 16), rb(*bf16, 4, 16), rf(*f32, 4, 16);
  const std::vector<float> la = ra.Step(0, prompt, false), lb = rb.Step(0, prompt, false),
                           lf = rf.Step(0, prompt, false);
  EXPECT_EQ(la, lb);  // bfloat16 is what auto picks here
  EXPECT_NE(la, lf);
}

}  // namespace
}  // namespace gemmad::model::gemma4
