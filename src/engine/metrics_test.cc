#include "engine/metrics.h"

#include <gtest/gtest.h>

namespace gemmad::engine {
namespace {

TEST(Histogram, BucketsAreLessOrEqual) {
  Histogram h({1.0, 2.0, 5.0});
  h.Observe(0.5);
  h.Observe(1.0);
  h.Observe(1.5);
  h.Observe(7.0);
  EXPECT_EQ(h.counts, (std::vector<uint64_t>{2, 1, 0, 1}));
  EXPECT_EQ(h.Cumulative(), (std::vector<uint64_t>{2, 3, 3, 4}));
  EXPECT_EQ(h.count, 4u);
  EXPECT_DOUBLE_EQ(h.sum, 10.0);
}

TEST(Histogram, VllmBuckets) {
  EXPECT_EQ(TokenCountBuckets(100), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  EXPECT_EQ(TokenCountBuckets(4096).back(), 2000.0);
  EXPECT_EQ(TtftBuckets().size(), 22u);
  EXPECT_EQ(TtftBuckets().back(), 2560.0);
  EXPECT_EQ(InterTokenBuckets().size(), 19u);
  EXPECT_EQ(RequestLatencyBuckets().front(), 0.3);
  EXPECT_EQ(RequestLatencyBuckets().back(), 7680.0);
  EXPECT_EQ(IterationTokenBuckets().back(), 16384.0);
  EXPECT_EQ(ParamsNBuckets(), (std::vector<double>{1, 2, 5, 10, 20}));
  EngineMetrics m;
  EXPECT_EQ(m.time_to_first_token_seconds.counts.size(), 23u);
}

}  // namespace
}  // namespace gemmad::engine
