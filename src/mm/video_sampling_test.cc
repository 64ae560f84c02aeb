// Tests of vLLM's frame sampling rule and OpenCV's frame count (video_sampling.h). The golden
// test (tests/media_video) checks SampleFrameIndices against numpy on a larger table.
#include "mm/video_sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gemmad::mm {
namespace {

using V = std::vector<int64_t>;

TEST(SampleFrameIndicesTest, FewerFramesThanAskedKeepsAll) {
  EXPECT_EQ(SampleFrameIndices(5, 32), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(SampleFrameIndices(32, 32), SampleFrameIndices(32, -1));
  EXPECT_EQ(SampleFrameIndices(32, 32).size(), 32u);
  EXPECT_EQ(SampleFrameIndices(1, 32), (V{0}));
}

TEST(SampleFrameIndicesTest, NonPositiveNumFramesMeansAll) {
  EXPECT_EQ(SampleFrameIndices(7, 0), (V{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(SampleFrameIndices(7, -1), (V{0, 1, 2, 3, 4, 5, 6}));
}

TEST(SampleFrameIndicesTest, EmptyWithoutFrames) {
  EXPECT_TRUE(SampleFrameIndices(0, 32).empty());
  EXPECT_TRUE(SampleFrameIndices(-5, 32).empty());
}

TEST(SampleFrameIndicesTest, LinspaceFloorsAndEndsOnTheLastFrame) {
  // np.linspace(0, 39, 4, dtype=int) == [0, 13, 26, 39]; (0, 9, 4) == [0, 3, 6, 9].
  EXPECT_EQ(SampleFrameIndices(40, 4), (V{0, 13, 26, 39}));
  EXPECT_EQ(SampleFrameIndices(10, 4), (V{0, 3, 6, 9}));
  EXPECT_EQ(SampleFrameIndices(10, 1), (V{0}));
  EXPECT_EQ(SampleFrameIndices(10, 2), (V{0, 9}));
  // Not HF's arange(n) * total // n, which would give [0, 10, 20, 30] for (40, 4).
  EXPECT_NE(SampleFrameIndices(40, 4), (V{0, 10, 20, 30}));
}

TEST(SampleFrameIndicesTest, StrictlyIncreasingInRangeForLongVideos) {
  for (int64_t total : {33, 64, 1000, 215999, 10000019}) {
    V idx = SampleFrameIndices(total, 32);
    ASSERT_EQ(idx.size(), 32u);
    EXPECT_EQ(idx.front(), 0);
    EXPECT_EQ(idx.back(), total - 1);
    for (size_t i = 1; i < idx.size(); ++i) EXPECT_LT(idx[i - 1], idx[i]) << total;
  }
}

TEST(ReportedFrameCountTest, StreamCountWinsElseDurationTimesFps) {
  EXPECT_EQ(ReportedFrameCount(40, 99.0, 25.0), 40.0);
  EXPECT_EQ(ReportedFrameCount(0, 2.135, 30000.0 / 1001), 64.0);  // floor(63.99 + 0.5)
  EXPECT_EQ(ReportedFrameCount(0, 1.0, 10.0), 10.0);
  EXPECT_EQ(ReportedFrameCount(0, 1.02, 10.0), 10.0);
  EXPECT_EQ(ReportedFrameCount(0, 1.05, 10.0), 11.0);
  // No duration (AV_NOPTS_VALUE seconds): a large negative count, as OpenCV reports it.
  EXPECT_LT(ReportedFrameCount(0, -9.2e12, 25.0), 0.0);
  EXPECT_TRUE(std::isnan(ReportedFrameCount(0, NAN, 25.0)));
}

}  // namespace
}  // namespace gemmad::mm
