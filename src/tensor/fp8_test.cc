// FP8 E4M3 decode (all 256 codes), round-to-nearest-even with saturation, and the code round trip.
#include "tensor/fp8.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gemmad::tensor {
namespace {

TEST(Fp8, DecodesEveryCode) {
  EXPECT_EQ(E4M3ToFloat(0x00), 0.0f);
  EXPECT_EQ(E4M3ToFloat(0x01), 0x1p-9f);   // smallest subnormal
  EXPECT_EQ(E4M3ToFloat(0x07), 7 * 0x1p-9f);
  EXPECT_EQ(E4M3ToFloat(0x08), 0x1p-6f);   // smallest normal
  EXPECT_EQ(E4M3ToFloat(0x38), 1.0f);
  EXPECT_EQ(E4M3ToFloat(0x7E), 448.0f);
  EXPECT_EQ(E4M3ToFloat(0xFE), -448.0f);
  EXPECT_TRUE(std::isnan(E4M3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(E4M3ToFloat(0xFF)));
  float prev = -1.0f;
  for (int c = 0; c < 0x7F; ++c) {  // positive codes increase monotonically and round-trip
    const float v = E4M3ToFloat(static_cast<uint8_t>(c));
    EXPECT_GT(v, prev) << c;
    prev = v;
    EXPECT_EQ(FloatToE4M3(v), c);
    EXPECT_EQ(RoundToE4M3(v), v);
    EXPECT_EQ(FloatToE4M3(-v), c == 0 ? 0x80 : (0x80 | c));
  }
}

TEST(Fp8, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(RoundToE4M3(1.0625f), 1.0f);     // halfway 1 and 1.125: even mantissa (1.0)
  EXPECT_EQ(RoundToE4M3(1.1875f), 1.25f);    // halfway 1.125 and 1.25: even (1.25)
  EXPECT_EQ(RoundToE4M3(1.07f), 1.125f);
  EXPECT_EQ(RoundToE4M3(0x1p-10f), 0.0f);    // half the smallest subnormal: to even (0)
  EXPECT_EQ(RoundToE4M3(3 * 0x1p-10f), 2 * 0x1p-9f);
  EXPECT_EQ(RoundToE4M3(15.5f), 16.0f);      // carry into the exponent
  EXPECT_EQ(RoundToE4M3(1000.0f), 448.0f);
  EXPECT_EQ(RoundToE4M3(-1e30f), -448.0f);
  EXPECT_EQ(RoundToE4M3(464.0f), 448.0f);
  // Every value between consecutive codes goes to the nearer one.
  for (int c = 0; c < 0x7E; ++c) {
    const float lo = E4M3ToFloat(static_cast<uint8_t>(c)), hi = E4M3ToFloat(static_cast<uint8_t>(c + 1));
    EXPECT_EQ(RoundToE4M3(lo + (hi - lo) * 0.3f), lo) << c;
    EXPECT_EQ(RoundToE4M3(lo + (hi - lo) * 0.7f), hi) << c;
  }
}

}  // namespace
}  // namespace gemmad::tensor
