// The torch-free random checkpoint writer produces byte-for-byte the safetensors header that
// transformers writes for T1-T3 (names, shapes, dtypes, order, offsets), in fp32, bf16 and the
// multimodal prefix, and for the Gemma 3 G1 in fp32 and bf16. The transformers headers are committed
// by scripts/golden/make_gemma4_goldens.py and make_gemma3_goldens.py.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "base/files.h"
#include "gemma4_golden.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"

namespace gemmad {
namespace {

std::string TempPath(const std::string& name) { return TestTempPath(name); }

std::string RawHeader(const std::string& path) {
  auto bytes = ReadFileToString(path);
  EXPECT_TRUE(bytes.ok()) << path;
  if (!bytes.ok() || bytes->size() < 8) return "";
  uint64_t n = 0;
  std::memcpy(&n, bytes->data(), 8);
  std::string h = bytes->substr(8, n);
  while (!h.empty() && h.back() == ' ') h.pop_back();
  return h;
}

// {name: [dtype, shape]} without offsets, for a readable first failure.
std::map<std::string, std::string> Tensors(const std::string& header) {
  std::map<std::string, std::string> out;
  nlohmann::json parsed = nlohmann::json::parse(header);
  for (const auto& [k, v] : parsed.items()) {
    if (k != "__metadata__") out[k] = v["dtype"].dump() + v["shape"].dump();
  }
  return out;
}

// Every `<model>/<variant>` entry of <root>/transformers_headers.json, written by the preset's
// random checkpoint, has transformers' header byte for byte.
void ExpectHeadersMatch(const std::string& root, size_t min_entries) {
  auto text = ReadFileToString(root + "/transformers_headers.json");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  auto headers = nlohmann::json::parse(*text);
  ASSERT_GE(headers.size(), min_entries);
  for (const auto& [key, expected] : headers.items()) {
    SCOPED_TRACE(key);
    std::string model = key.substr(0, key.find('/'));
    std::string variant = key.substr(key.find('/') + 1);
    auto preset = model::gemma4::FindPreset(model);
    ASSERT_TRUE(preset.ok());
    model::gemma4::RandomCheckpointOptions o;
    o.dtype = variant == "f32" ? tensor::DType::kF32 : tensor::DType::kBF16;
    o.multimodal = variant.find("multimodal") != std::string::npos;
    std::string dir = TempPath("headers_" + model + "_" + variant);
    ASSERT_TRUE(model::gemma4::WriteRandomCheckpoint(dir, preset->config, o).ok());
    std::string got = RawHeader(JoinPath(dir, "model.safetensors"));
    EXPECT_EQ(Tensors(got), Tensors(expected.get<std::string>()));
    EXPECT_EQ(got, expected.get<std::string>());  // same order, offsets and spelling
  }
}

TEST(TransformersHeadersTest, RandomWriterMatchesTransformersSaves) { ExpectHeadersMatch(golden::Gemma4GoldenRoot(), 7); }

// Gemma 3 (G1, fp32 and bf16): no layer_scalar, the 13 tensors per layer transformers saves.
TEST(TransformersHeadersTest, RandomWriterMatchesTransformersGemma3Saves) {
  ExpectHeadersMatch(golden::Gemma3GoldenRoot(), 2);
}

}  // namespace
}  // namespace gemmad
