// Tests of the Gemma 4 video frame timestamps and prompt text (video_prompt.h). The golden test
// (tests/media_video) compares FrameTimestamp with vLLM's Python expression on a larger table.
#include "mm/video_prompt.h"

#include <gtest/gtest.h>

#include <vector>

namespace gemmad::mm {
namespace {

TEST(FrameTimestampTest, MinutesAndSecondsZeroPadded) {
  EXPECT_EQ(FrameTimestamp(0, 25.0), "00:00");
  EXPECT_EQ(FrameTimestamp(24, 25.0), "00:00");  // 0.96 s truncates
  EXPECT_EQ(FrameTimestamp(25, 25.0), "00:01");
  EXPECT_EQ(FrameTimestamp(1499, 25.0), "00:59");
  EXPECT_EQ(FrameTimestamp(1500, 25.0), "01:00");
  EXPECT_EQ(FrameTimestamp(15275, 25.0), "10:11");
}

TEST(FrameTimestampTest, OverAnHourKeepsCountingMinutes) {
  EXPECT_EQ(FrameTimestamp(90000, 25.0), "60:00");    // 1 h
  EXPECT_EQ(FrameTimestamp(91525, 25.0), "61:01");
  EXPECT_EQ(FrameTimestamp(150000, 25.0), "100:00");  // three digits, like Python's :02d
  EXPECT_EQ(FrameTimestamp(int64_t{1} << 40, 24.0), "763549741:30");
}

TEST(FrameTimestampTest, FractionalFps) {
  constexpr double kNtsc = 30000.0 / 1001;  // 29.97...
  EXPECT_EQ(FrameTimestamp(1798, kNtsc), "00:59");  // 59.993 s
  EXPECT_EQ(FrameTimestamp(1799, kNtsc), "01:00");  // 60.027 s
  EXPECT_EQ(FrameTimestamp(107892, kNtsc), "59:59");
  EXPECT_EQ(FrameTimestamp(107893, kNtsc), "60:00");
  EXPECT_EQ(FrameTimestamp(1, 0.5), "00:02");
}

TEST(FrameTimestampTest, UnknownFpsFallsBackTo24) {
  EXPECT_EQ(FrameTimestamp(48, 0.0), "00:02");
  EXPECT_EQ(FrameTimestamp(48, -3.0), "00:02");
  EXPECT_EQ(FrameTimestamp(1440, 0.0), "01:00");
}

TEST(FramePrefixTest, FirstFrameHasNoLeadingSpace) {
  EXPECT_EQ(FramePrefix(0, "00:00"), "00:00 ");
  EXPECT_EQ(FramePrefix(1, "00:02"), " 00:02 ");
  EXPECT_EQ(FramePrefix(31, "01:05"), " 01:05 ");
}

TEST(VideoReplacementTextTest, JoinsFramesWithASingleSpace) {
  std::vector<int64_t> idx = {0, 13, 39};
  EXPECT_EQ(VideoReplacementText(idx, 25.0, 2, "<B>", "<v>", "<E>"),
            "00:00 <B><v><v><E> 00:00 <B><v><v><E> 00:01 <B><v><v><E>");
  EXPECT_EQ(VideoReplacementText({}, 25.0, 2, "<B>", "<v>", "<E>"), "");
}

}  // namespace
}  // namespace gemmad::mm
