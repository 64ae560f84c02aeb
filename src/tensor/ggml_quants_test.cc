#include "tensor/ggml_quants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tensor/ggml_blocks.h"
#include "tensor/ggml_types.h"
#include "tensor/half.h"

namespace gemmad::tensor {
namespace {

template <typename Block>
std::vector<uint8_t> Bytes(const Block& b) {
  std::vector<uint8_t> out(sizeof(Block));
  std::memcpy(out.data(), &b, sizeof(Block));
  return out;
}

TEST(GgmlQuantsTest, RejectsUnknownTypesAndPartialBlocks) {
  std::vector<uint8_t> src(1024);
  std::vector<float> dst(512);
  for (uint32_t id : {4u, 5u, 31u, 1000u}) {
    Status s = DequantizeGgmlRow(id, src.data(), 32, dst.data());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << id;
    EXPECT_NE(s.message().find("unknown ggml type"), std::string::npos) << s.message();
    EXPECT_FALSE(CanDequantizeGgml(id));
  }
  Status partial = DequantizeGgmlRow(kGgmlQ4_K, src.data(), 100, dst.data());
  EXPECT_EQ(partial.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(partial.message().find("Q4_K"), std::string::npos) << partial.message();
  EXPECT_EQ(DequantizeGgmlRow(kGgmlQ8_0, src.data(), 33, dst.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DequantizeGgmlRow(kGgmlF32, src.data(), -1, dst.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(DequantizeGgmlRow(kGgmlQ4_K, src.data(), 0, dst.data()).ok());
}

TEST(GgmlQuantsTest, KnownButUnsupportedTypesAreUnimplemented) {
  std::vector<uint8_t> src(1024);
  std::vector<float> dst(256);
  for (uint32_t id : {9u, 16u, 19u, 24u, 28u, 34u, 40u}) {  // Q8_1, IQ2_XXS, IQ1_S, I8, F64, TQ1_0, NVFP4
    Status s = DequantizeGgmlRow(id, src.data(), FindGgmlType(id)->block_size, dst.data());
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << id;
    EXPECT_NE(s.message().find(FindGgmlType(id)->name), std::string::npos) << s.message();
    EXPECT_FALSE(CanDequantizeGgml(id));
  }
}

TEST(GgmlQuantsTest, SupportedTypes) {
  std::vector<uint32_t> supported;
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (CanDequantizeGgml(t.id)) supported.push_back(t.id);
  }
  EXPECT_EQ(supported, (std::vector<uint32_t>{kGgmlF32, kGgmlF16, kGgmlQ4_0, kGgmlQ4_1, kGgmlQ5_0, kGgmlQ5_1,
                                              kGgmlQ8_0, kGgmlQ2_K, kGgmlQ3_K, kGgmlQ4_K, kGgmlQ5_K, kGgmlQ6_K,
                                              kGgmlQ8_K, kGgmlIQ4_NL, kGgmlIQ4_XS, kGgmlBF16, kGgmlMXFP4}));
}

// Q8_K (gguf-py has no dequantizer for it): y = d * q with an f32 d; bsums are ignored.
TEST(GgmlQuantsTest, Q8KIsScaleTimesValue) {
  BlockQ8_K b{};
  b.d = -0.375f;
  for (int j = 0; j < 256; ++j) b.qs[j] = static_cast<int8_t>(j - 128);
  for (int16_t& s : b.bsums) s = 12345;
  std::vector<uint8_t> src = Bytes(b);
  std::vector<float> y(256);
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlQ8_K, src.data(), 256, y.data()).ok());
  for (int j = 0; j < 256; ++j) EXPECT_EQ(y[j], -0.375f * static_cast<float>(j - 128)) << j;
}

// Hand-built blocks, checked against the spec's formulas (§4.2) rather than gguf-py.
TEST(GgmlQuantsTest, Q4_0NibbleOrderIsHalvesNotInterleaved) {
  BlockQ4_0 b{};
  b.d = FloatToF16(0.5f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | (15 - j) << 4);
  std::vector<uint8_t> src = Bytes(b);
  std::vector<float> y(32);
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlQ4_0, src.data(), 32, y.data()).ok());
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 8));
    EXPECT_EQ(y[j + 16], 0.5f * static_cast<float>(7 - j));
  }
}

TEST(GgmlQuantsTest, Q4_KUnpacksTheHighScalesAndMins) {
  BlockQ4_K b{};
  b.d = FloatToF16(1.0f);
  b.dmin = FloatToF16(2.0f);
  // Sub-block 5: scale = (S[9] & 15) | (S[1] >> 6) << 4 = 3 | 2 << 4 = 35,
  //              min   = (S[9] >> 4) | (S[5] >> 6) << 4 = 1 | 3 << 4 = 49.
  b.scales[1] = 0x80;
  b.scales[5] = 0xC0;
  b.scales[9] = 0x13;
  for (uint8_t& q : b.qs) q = 0x70;  // low nibble 0, high nibble 7
  std::vector<uint8_t> src = Bytes(b);
  std::vector<float> y(256);
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlQ4_K, src.data(), 256, y.data()).ok());
  // Sub-block 5 = high nibbles of qs[64..95] = outputs 160..191: 1 * 35 * 7 - 2 * 49.
  for (int o = 160; o < 192; ++o) EXPECT_EQ(y[o], 35.0f * 7.0f - 98.0f) << o;
  // Sub-block 1 (outputs 32..63): scale S[1] & 63 = 0, min S[5] & 63 = 0.
  for (int o = 32; o < 64; ++o) EXPECT_EQ(y[o], 0.0f) << o;
}

TEST(GgmlQuantsTest, Q6_KLayout) {
  BlockQ6_K b{};
  b.d = FloatToF16(0.25f);
  for (int s = 0; s < 16; ++s) b.scales[s] = static_cast<int8_t>(s - 8);
  b.ql[64 + 40] = 0x5A;  // half 1: low nibble -> r = 40, high nibble -> r = 104
  b.qh[32 + 8] = 0xE4;   // half 1, r % 32 = 8: bits (0,1)=0 -> r 8, (2,3)=1 -> r 40, (4,5)=2 -> r 72, (6,7)=3 -> r 104
  std::vector<uint8_t> src = Bytes(b);
  std::vector<float> y(256);
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlQ6_K, src.data(), 256, y.data()).ok());
  auto want = [&](int o, int q) { return (0.25f * static_cast<float>(o / 16 - 8)) * static_cast<float>(q - 32); };
  EXPECT_EQ(y[128 + 40], want(128 + 40, 0xA | 1 << 4));
  EXPECT_EQ(y[128 + 104], want(128 + 104, 0x5 | 3 << 4));
  EXPECT_EQ(y[128 + 72], want(128 + 72, 0 | 2 << 4));
  EXPECT_EQ(y[128 + 8], want(128 + 8, 0));
}

TEST(GgmlQuantsTest, PlainTypes) {
  std::vector<uint16_t> h = {FloatToF16(1.5f), 0x8001, 0x7C00};
  std::vector<float> y(3);
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlF16, reinterpret_cast<const uint8_t*>(h.data()), 3, y.data()).ok());
  EXPECT_EQ(y[0], 1.5f);
  EXPECT_EQ(y[1], -F16ToFloat(0x0001));
  EXPECT_TRUE(std::isinf(y[2]));
  std::vector<uint16_t> bf = {FloatToBf16(-2.25f)};
  ASSERT_TRUE(DequantizeGgmlRow(kGgmlBF16, reinterpret_cast<const uint8_t*>(bf.data()), 1, y.data()).ok());
  EXPECT_EQ(y[0], -2.25f);
}

}  // namespace
}  // namespace gemmad::tensor
