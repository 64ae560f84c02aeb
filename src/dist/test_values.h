// Tests only: per-rank float inputs whose sum depends on the order of addition (magnitudes from
// 2^-24 to 2^24, both signs), and the serial rank-order sum the collectives must match bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/rng.h"

namespace gemmad::dist::testing {

// [n] rank `rank`'s values for test case `seed`; the same on every process and thread.
inline std::vector<float> SpreadValues(uint64_t seed, int rank, size_t n) {
  Rng rng(seed * 1'000'003 + static_cast<uint64_t>(rank) * 7'919 + 1);
  std::vector<float> v(n);
  for (float& x : v) {
    const uint64_t bits = rng.Next();
    const float mantissa = 1.0f + static_cast<float>(bits & 0x7fffff) * 0x1.0p-23f;
    const int exponent = static_cast<int>((bits >> 23) % 49) - 24;
    x = std::ldexp((bits >> 40) & 1 ? -mantissa : mantissa, exponent);
  }
  return v;
}

// [n] Σ_{r=0}^{num_ranks-1} SpreadValues(seed, r, n), added left to right in rank order.
inline std::vector<float> SerialRankSum(uint64_t seed, int num_ranks, size_t n) {
  std::vector<float> sum = SpreadValues(seed, 0, n);
  for (int r = 1; r < num_ranks; ++r) {
    const std::vector<float> x = SpreadValues(seed, r, n);
    for (size_t i = 0; i < n; ++i) sum[i] += x[i];
  }
  return sum;
}

// The index of the first element whose bits differ, or -1 when a and b are bitwise equal.
inline int64_t FirstBitDifference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace gemmad::dist::testing
