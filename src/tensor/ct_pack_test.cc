// compressed-tensors packing against the spec's worked vectors (quantized-checkpoints.md §1.7,
// the same vectors Google's LiteRT reader tests use) and random round trips at every width.
#include "tensor/ct_pack.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace gemmad::tensor {
namespace {

std::vector<int32_t> Pack(const std::vector<int8_t>& q, int bits) {
  std::vector<int32_t> w(static_cast<size_t>(CtPackedWords(static_cast<int64_t>(q.size()), bits)));
  CtPackRow(q.data(), static_cast<int64_t>(q.size()), bits, w.data());
  return w;
}

TEST(CtPack, SpecVectors) {
  std::vector<int8_t> ramp;
  for (int v = -8; v <= 7; ++v) ramp.push_back(static_cast<int8_t>(v));
  EXPECT_EQ(Pack(ramp, 4), (std::vector<int32_t>{1985229328, -19088744}));  // 0x76543210, 0xFEDCBA98
  EXPECT_EQ(Pack({1, -2, 3, -4, 5, -6, 7, -8}, 4), (std::vector<int32_t>{254626665}));  // 0x0F2D4B69
  std::vector<int8_t> two;
  for (int r = 0; r < 4; ++r) two.insert(two.end(), {-2, -1, 0, 1});
  EXPECT_EQ(Pack(two, 2), (std::vector<int32_t>{-454761244}));  // 0xE4E4E4E4
  EXPECT_EQ(Pack({-128, -1, 0, 127}, 8), (std::vector<int32_t>{-8356096}));  // 0xFF807F00: offset +128, not two's complement
  const std::vector<int32_t> words{1985229328, -19088744};
  for (int k = 0; k < 16; ++k) EXPECT_EQ(CtUnpack(words.data(), k, 4), k - 8);
}

TEST(CtPack, RoundTripsEveryWidthAndOddLengths) {
  std::mt19937 rng(7);
  for (int bits = 1; bits <= 8; ++bits) {
    for (int64_t k : {1, 7, 31, 32, 33, 100}) {
      std::uniform_int_distribution<int> d(-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
      std::vector<int8_t> q(static_cast<size_t>(k));
      for (auto& v : q) v = static_cast<int8_t>(d(rng));
      const auto w = Pack(q, bits);
      ASSERT_EQ(static_cast<int64_t>(w.size()), (k * bits + 31) / 32);
      for (int64_t i = 0; i < k; ++i) ASSERT_EQ(CtUnpack(w.data(), i, bits), q[static_cast<size_t>(i)]) << bits << " " << k << " " << i;
      // The bits past the last element are zero.
      const int64_t used = k * bits % 32;
      if (used != 0) {
        EXPECT_EQ(static_cast<uint32_t>(w.back()) >> used, 0u);
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::tensor
