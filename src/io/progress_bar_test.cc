// ProgressBar: the terminal bar and, elsewhere, periodic log lines with amount, rate and ETA.
#include "io/progress_bar.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gemmad::io {
namespace {

using std::chrono::milliseconds;

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(ProgressBar, LogLinesCarryAmountRateAndEta) {
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("Downloading model.safetensors", 2'000'000'000, true, /*bytes=*/true, milliseconds(0),
                    /*terminal=*/false);
    bar.Set(1'000'000'000);
  }
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(out, "INFO"), 3) << out;  // start, one update, done
  EXPECT_NE(out.find("Downloading model.safetensors: 0% (0.00GB of 2.00GB)"), std::string::npos) << out;
  EXPECT_NE(out.find("Downloading model.safetensors: 50% (1.00GB of 2.00GB), "), std::string::npos) << out;
  EXPECT_NE(out.find(" MB/s, ETA "), std::string::npos) << out;
  EXPECT_NE(out.find("Downloading model.safetensors: done, 50% (1.00GB of 2.00GB)"), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << "no bar in a log";
}

TEST(ProgressBar, LogLinesAreRateLimitedAndCountsWork) {
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("Loading safetensors checkpoint shards", 4, true, /*bytes=*/false, std::chrono::hours(1),
                    /*terminal=*/false);
    for (int i = 0; i < 4; ++i) bar.Advance(1);
  }
  const std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(Count(out, "INFO"), 2) << out;  // the start and the end only, within the interval
  EXPECT_NE(out.find("shards: done, 100% (4 of 4) in 00:00"), std::string::npos) << out;
}

TEST(ProgressBar, UnknownTotalsAndTheTerminalBar) {
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("Downloading x", 0, true, /*bytes=*/true, milliseconds(0), /*terminal=*/false);
    bar.Set(5'000'000);
  }
  std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("Downloading x: 0.01GB, "), std::string::npos) << out;
  EXPECT_EQ(out.find("ETA"), std::string::npos) << out;
  ::testing::internal::CaptureStderr();
  {
    ProgressBar bar("Loading", 2, true, false, milliseconds(0), /*terminal=*/true);
    bar.Advance(2);
  }
  out = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(out.find("\rLoading: 100% |#########################| 2/2"), std::string::npos) << out;
  EXPECT_EQ(out.find("INFO"), std::string::npos);
  ::testing::internal::CaptureStderr();
  { ProgressBar bar("Quiet", 2, /*enabled=*/false, false, milliseconds(0), /*terminal=*/false); }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace gemmad::io
