#include "io/memory_info.h"

#include <gtest/gtest.h>

namespace gemmad::io {
namespace {

TEST(MemoryInfo, ParsesTheMemAvailableLine) {
  EXPECT_EQ(ParseMemAvailable("MemTotal:  24000000 kB\nMemFree:  100 kB\nMemAvailable:   1234 kB\nBuffers: 1 kB\n"),
            uint64_t{1234} << 10);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: 7 kB"), uint64_t{7} << 10);
}

TEST(MemoryInfo, RefusesWhatIsNotTheLine) {
  EXPECT_EQ(ParseMemAvailable(""), std::nullopt);
  EXPECT_EQ(ParseMemAvailable("MemFree: 100 kB\n"), std::nullopt);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: kB\n"), std::nullopt);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: 12 MB\n"), std::nullopt);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: 99999999999999999999999 kB\n"), std::nullopt);
}

TEST(MemoryInfo, ThisSystemSaysSomething) {
  const auto bytes = AvailableMemoryBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 0u);
}

}  // namespace
}  // namespace gemmad::io
