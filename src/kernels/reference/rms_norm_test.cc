#include "kernels/reference/rms_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gemmad::kernels::reference {
namespace {

TEST(RmsNormRefTest, MatchesFormula) {
  std::vector<float> x = {1, -2, 3, 4, 0.5f, 0.25f};
  std::vector<float> w = {0.5f, 1.5f, 1.0f};
  std::vector<float> out(6);
  RmsNorm(x.data(), w.data(), out.data(), 2, 3, 1e-6f);
  double ms0 = (1 + 4 + 9) / 3.0 + 1e-6;
  EXPECT_NEAR(out[0], 1 / std::sqrt(ms0) * 0.5, 1e-6);
  EXPECT_NEAR(out[1], -2 / std::sqrt(ms0) * 1.5, 1e-6);
  double ms1 = (16 + 0.25 + 0.0625) / 3.0 + 1e-6;
  EXPECT_NEAR(out[5], 0.25 / std::sqrt(ms1), 1e-6);
  // Weightless variant, in place.
  RmsNorm(x.data(), nullptr, x.data(), 2, 3, 1e-6f);
  EXPECT_NEAR(x[2], 3 / std::sqrt(ms0), 1e-6);
}

}  // namespace
}  // namespace gemmad::kernels::reference
