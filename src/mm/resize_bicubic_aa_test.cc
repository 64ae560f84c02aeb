#include "mm/resize_bicubic_aa.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "base/rng.h"
#include "mm/resize_rows.h"

namespace gemmad::mm {
namespace {

Image RandomImage(int64_t h, int64_t w, uint64_t seed) {
  Rng rng(seed);
  Image img;
  img.height = h;
  img.width = w;
  img.rgb.resize(static_cast<size_t>(h * w * 3));
  for (auto& v : img.rgb) v = static_cast<uint8_t>(rng.Next() >> 56);
  return img;
}

// 1x7 RGB row; the expected outputs below were computed with torch 2.15 CPU
// (torchvision resize(uint8, BICUBIC, antialias=True)).
Image KnownRow() {
  Image img;
  img.height = 1;
  img.width = 7;
  img.rgb = {0, 10, 250, 255, 20, 240, 10, 30, 0, 200, 40, 255, 37, 50, 3, 128, 60, 128, 90, 70, 64};
  return img;
}

TEST(ResizeBicubicAaTest, MatchesTorchOnKnownValues) {
  struct Case {
    int64_t h, w;
    std::vector<uint8_t> want;
  };
  const std::vector<Case> cases = {
      {1, 3, {113, 17, 201, 111, 40, 115, 97, 63, 80}},
      {1, 11, {0,  9,  251, 119, 14, 255, 250, 21, 225, 59,  27, 36, 62, 34, 78, 200, 40,
               255, 92, 46, 88, 47,  53, 15, 124, 59, 122, 111, 66, 97, 87, 71, 60}},
      {3, 4, {110, 14, 238, 118, 31, 118, 101, 49, 101, 102, 66, 84, 110, 14, 238, 118, 31, 118,
              101, 49, 101, 102, 66, 84,  110, 14, 238, 118, 31, 118, 101, 49, 101, 102, 66, 84}},
  };
  for (const Case& c : cases) {
    auto out = ResizeBicubicAntialias(KnownRow(), c.h, c.w);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->height, c.h);
    EXPECT_EQ(out->width, c.w);
    EXPECT_EQ(out->rgb, c.want) << c.h << "x" << c.w;
  }
}

TEST(ResizeBicubicAaTest, HeightOnlyFromOneRowRepeatsTheRow) {
  // Only the vertical pass runs; with a single input row every weight set normalises to one tap.
  const Image row = KnownRow();
  auto out = ResizeBicubicAntialias(row, 5, 7);
  ASSERT_TRUE(out.ok());
  for (int64_t y = 0; y < 5; ++y) {
    EXPECT_TRUE(std::equal(row.rgb.begin(), row.rgb.end(), out->rgb.begin() + y * 21)) << y;
  }
}

TEST(ResizeBicubicAaTest, AxisOfEqualLengthsIsTheIdentity) {
  // scale 1: taps [x-1, x+3) with Keys weights (0, 1, 0, 0) at precision 14 (2 * 2^14 >= 2^15).
  auto ax = ComputeBicubicAaAxis(10, 10);
  ASSERT_TRUE(ax.ok());
  EXPECT_EQ(ax->taps, 5);
  EXPECT_EQ(ax->precision, 14);
  for (int64_t i = 1; i < 7; ++i) {
    EXPECT_EQ(ax->first[i], i - 1);
    EXPECT_EQ(ax->count[i], 4);
    const int16_t* w = ax->weights.data() + i * ax->taps;
    EXPECT_EQ(w[0], 0);
    EXPECT_EQ(w[1], 1 << 14);
    EXPECT_EQ(w[2], 0);
    EXPECT_EQ(w[3], 0);
  }
}

TEST(ResizeBicubicAaTest, AxisWeightsAreNormalisedAndInRange) {
  for (auto [in, out] : {std::pair<int64_t, int64_t>{4032, 1200}, {7, 384}, {1, 48}, {100000, 48}, {97, 96}}) {
    auto ax = ComputeBicubicAaAxis(in, out);
    ASSERT_TRUE(ax.ok());
    ASSERT_GE(ax->precision, 1);
    ASSERT_LE(ax->precision, 22);
    for (int64_t i = 0; i < out; ++i) {
      ASSERT_GE(ax->first[i], 0);
      ASSERT_LE(ax->count[i], ax->taps);
      ASSERT_LE(ax->first[i] + ax->count[i], in);
      int64_t sum = 0;
      for (int64_t j = 0; j < ax->count[i]; ++j) sum += ax->weights[i * ax->taps + j];
      // Each int16 weight is rounded once: the sum is within half a unit per tap of 2^p.
      EXPECT_LE(std::abs(sum - (int64_t{1} << ax->precision)), (ax->count[i] + 1) / 2) << in << "->" << out;
    }
  }
}

TEST(ResizeBicubicAaTest, SameSizeIsACopy) {
  Image img = RandomImage(9, 13, 1);
  auto out = ResizeBicubicAntialias(img, 9, 13);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->rgb, img.rgb);
}

TEST(ResizeBicubicAaTest, GenericAndAvx2KernelsAgree) {
  const internal::ResizeRowKernels* avx2 = internal::Avx2ResizeRowKernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2";
  Rng rng(7);
  for (int t = 0; t < 60; ++t) {
    const int64_t h = 1 + static_cast<int64_t>(rng.Below(90)), w = 1 + static_cast<int64_t>(rng.Below(90));
    const int64_t oh = 1 + static_cast<int64_t>(rng.Below(130)), ow = 1 + static_cast<int64_t>(rng.Below(130));
    Image img = RandomImage(h, w, 100 + t);
    auto a = internal::ResizeBicubicAntialiasWith(internal::GenericResizeRowKernels(), img, oh, ow);
    auto b = internal::ResizeBicubicAntialiasWith(*avx2, img, oh, ow);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->rgb, b->rgb) << h << "x" << w << " -> " << oh << "x" << ow;
  }
}

TEST(ResizeBicubicAaTest, SplittingRowsBetweenThreadsGivesTheSameBytes) {
  Image img = RandomImage(301, 257, 3);
  auto serial = ResizeBicubicAntialias(img, 96, 144);
  ASSERT_TRUE(serial.ok());
  ParallelFor threads = [](int64_t n, const std::function<void(int64_t, int64_t)>& body) {
    std::vector<std::thread> pool;
    const int64_t cuts[] = {0, n / 7, n / 2, n / 2 + 1, n};  // uneven, one range of a single row
    for (int i = 0; i + 1 < 5; ++i) pool.emplace_back(body, cuts[i], cuts[i + 1]);
    for (auto& t : pool) t.join();
  };
  for (auto [oh, ow] : {std::pair<int64_t, int64_t>{96, 144}, {700, 257}, {96, 257}}) {
    auto want = ResizeBicubicAntialias(img, oh, ow);
    auto got = ResizeBicubicAntialias(img, oh, ow, threads);
    ASSERT_TRUE(want.ok() && got.ok());
    EXPECT_EQ(want->rgb, got->rgb) << oh << "x" << ow;
  }
}

TEST(ResizeBicubicAaTest, RejectsBadInput) {
  Image empty;
  EXPECT_EQ(ResizeBicubicAntialias(empty, 4, 4).status().code(), StatusCode::kInvalidArgument);
  Image short_buffer = RandomImage(4, 4, 1);
  short_buffer.rgb.pop_back();
  EXPECT_EQ(ResizeBicubicAntialias(short_buffer, 8, 8).status().code(), StatusCode::kInvalidArgument);
  Image ok = RandomImage(4, 4, 1);
  EXPECT_EQ(ResizeBicubicAntialias(ok, 0, 4).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResizeBicubicAntialias(ok, 4, -1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResizeBicubicAntialias(ok, kMaxResizeSide + 1, 4).status().code(), StatusCode::kInvalidArgument);
  // Bounded before anything is allocated.
  auto huge = ResizeBicubicAntialias(ok, kMaxResizeSide, kMaxResizeSide);
  EXPECT_EQ(huge.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("exceeds"), std::string::npos);
  EXPECT_EQ(ComputeBicubicAaAxis(0, 5).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeBicubicAaAxis(5, kMaxResizeSide + 1).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gemmad::mm
