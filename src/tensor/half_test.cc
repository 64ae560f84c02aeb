#include "tensor/half.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/int8_round.h"
#include "tensor/tensor_view.h"

namespace gemmad::tensor {
namespace {

TEST(HalfTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
  // sqrt(1536) rounds to 39.25 in bf16 (text-model.md §3.1).
  EXPECT_EQ(RoundToBf16(std::sqrt(1536.0f)), 39.25f);
  EXPECT_EQ(RoundToBf16(std::sqrt(2560.0f)), 50.5f);
  EXPECT_EQ(RoundToBf16(std::sqrt(2816.0f)), 53.0f);
  EXPECT_EQ(RoundToBf16(std::sqrt(5376.0f)), 73.5f);
  // Ties go to even: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(RoundToBf16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
  EXPECT_EQ(RoundToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(HalfTest, F16RoundTripsEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = F16ToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToF16(f), h) << std::hex << h;
  }
  EXPECT_EQ(F16ToFloat(FloatToF16(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(F16ToFloat(FloatToF16(1e6f))));
  EXPECT_EQ(F16ToFloat(FloatToF16(std::ldexp(1.0f, -24))), std::ldexp(1.0f, -24));
}

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_EQ(*ParseDType("BF16"), DType::kBF16);
  EXPECT_EQ(DTypeSize(DType::kBF16), 2u);
  EXPECT_FALSE(ParseDType("F8_E5M2").has_value());
  EXPECT_EQ(ParseDType("F8_E4M3"), DType::kF8E4M3);  // compressed-tensors FP8 weights
  Shape s{2, 3};
  EXPECT_EQ(s.NumElements(), 6);
  EXPECT_EQ(s.ToString(), "[2, 3]");
}

// RoundClampInt8 (tensor/int8_round.h) equals clamp(nearbyint(v), -128, 127) on every eighth from
// -1100 to 1100 (halves tie to even), near the bounds, on huge values and infinities; NaN stays NaN.
TEST(Int8RoundTest, EqualsClampedNearbyint) {
  std::vector<float> vs = {127.5f, -128.5f, 126.5f, -127.5f, 0.5f, -0.5f, 1.5f, 2.5f, 1e30f, -1e30f,
                           INFINITY, -INFINITY, std::nextafter(0.5f, 1.0f), std::nextafter(0.5f, 0.0f)};
  for (int i = -8800; i <= 8800; ++i) vs.push_back(static_cast<float>(i) / 8.0f);
  for (float v : vs) {
    const float want = std::clamp(std::nearbyint(v), -128.0f, 127.0f);
    ASSERT_EQ(RoundClampInt8(v), want) << v;
  }
  EXPECT_TRUE(std::isnan(RoundClampInt8(std::nanf(""))));
}

}  // namespace
}  // namespace gemmad::tensor

