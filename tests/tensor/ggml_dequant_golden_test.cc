// DequantizeGgmlRow against tests/golden/ggml_dequant: for every type, the blocks must dequantize to
// exactly the float32 bit patterns gguf-py 0.19.0's `gguf.quants.dequantize` produces (NaNs
// included, by bit pattern), with zero tolerance (scripts/golden/make_ggml_dequant_goldens.py).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tensor/ggml_quants.h"
#include "tensor/ggml_types.h"

namespace gemmad::tensor {
namespace {

const std::string kDir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/ggml_dequant/";

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
  std::string type, blocks, floats;
  uint32_t id = 0;
  int64_t elements = 0;
};

std::vector<Case> LoadCases() {
  std::ifstream in(kDir + "cases.json");
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<Case> out;
  for (const auto& c : j.at("cases")) {
    out.push_back({c.at("type"), c.at("blocks"), c.at("floats"), c.at("id"), c.at("elements")});
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.type; }

class GgmlDequantGolden : public ::testing::TestWithParam<Case> {};

TEST_P(GgmlDequantGolden, EqualsGgufPyBitForBit) {
  const Case& c = GetParam();
  const GgmlTypeInfo* info = FindGgmlType(c.id);
  ASSERT_NE(info, nullptr);
  ASSERT_EQ(info->name, c.type);
  std::vector<uint8_t> blocks = ReadFile(kDir + c.blocks);
  std::vector<uint8_t> want_bytes = ReadFile(kDir + c.floats);
  ASSERT_EQ(blocks.size(), c.elements / info->block_size * info->type_size);
  ASSERT_EQ(want_bytes.size(), static_cast<size_t>(c.elements) * 4);
  std::vector<uint32_t> want(static_cast<size_t>(c.elements));
  std::memcpy(want.data(), want_bytes.data(), want_bytes.size());

  std::vector<float> got_f(static_cast<size_t>(c.elements));
  ASSERT_TRUE(DequantizeGgmlRow(c.id, blocks.data(), c.elements, got_f.data()).ok());
  std::vector<uint32_t> got(got_f.size());
  std::memcpy(got.data(), got_f.data(), got_f.size() * 4);
  size_t differing = 0, first = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      if (differing++ == 0) first = i;
    }
  }
  EXPECT_EQ(differing, 0u) << c.type << ": first difference at element " << first << " (block "
                           << first / info->block_size << "): got 0x" << std::hex << got[first] << ", gguf-py 0x"
                           << want[first];

  // Dequantizing block by block gives the same floats (each block is self-contained).
  std::vector<float> one(info->block_size);
  for (int64_t b = 0; b < c.elements / info->block_size; ++b) {
    ASSERT_TRUE(DequantizeGgmlRow(c.id, blocks.data() + b * info->type_size, info->block_size, one.data()).ok());
    ASSERT_EQ(std::memcmp(one.data(), got_f.data() + b * info->block_size, one.size() * 4), 0) << "block " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GgmlDequantGolden, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.type; });

// The goldens cover every type DequantizeGgmlRow handles except Q8_K, which gguf-py cannot
// dequantize (ggml_quants_test.cc checks it).
TEST(GgmlDequantGoldenCoverage, EveryDequantizableTypeHasAGolden) {
  std::set<uint32_t> golden;
  for (const Case& c : LoadCases()) golden.insert(c.id);
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (!CanDequantizeGgml(t.id) || t.id == kGgmlQ8_K) continue;
    EXPECT_TRUE(golden.count(t.id)) << t.name << " has no golden";
  }
}

}  // namespace
}  // namespace gemmad::tensor
