#include "cli/bench_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "cli/bench_dataset.h"

namespace gemmad::cli {
namespace {

TEST(BenchStatsTest, PercentileMatchesNumpyLinear) {
  // numpy.percentile([1, 2, 3, 4], p)
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 99), 3.97);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 100), 4);
  EXPECT_DOUBLE_EQ(Percentile({10}, 99), 10);
  EXPECT_DOUBLE_EQ(Percentile({}, 99), 0);
  EXPECT_NEAR(Percentile({0.1, 0.5, 0.2, 0.9, 0.3}, 90), 0.74, 1e-12);
}

TEST(BenchStatsTest, SummarizeInMilliseconds) {
  Distribution d = Summarize({0.001, 0.002, 0.003, 0.010}, {50, 99});
  EXPECT_DOUBLE_EQ(d.mean, 4.0);
  EXPECT_DOUBLE_EQ(d.median, 2.5);
  EXPECT_NEAR(d.std, std::sqrt((9.0 + 4.0 + 1.0 + 36.0) / 4.0), 1e-9);  // population std
  ASSERT_EQ(d.percentiles.size(), 2u);
  EXPECT_NEAR(d.percentiles[1].second, 9.79, 1e-9);
  Distribution empty = Summarize({}, {99});
  EXPECT_EQ(empty.mean, 0);
  EXPECT_EQ(empty.percentiles[0].second, 0);
}

RequestResult Ok(int64_t in, int64_t out, double ttft, double latency, std::vector<double> itl) {
  RequestResult r;
  r.success = true;
  r.prompt_len = in;
  r.output_tokens = out;
  r.ttft_s = ttft;
  r.latency_s = latency;
  r.itl_s = std::move(itl);
  return r;
}

TEST(BenchStatsTest, ComputeMetricsLikeVllm) {
  std::vector<RequestResult> rs;
  rs.push_back(Ok(10, 5, 0.1, 0.5, {0.1, 0.1, 0.1, 0.1}));  // tpot (0.5-0.1)/4 = 0.1
  rs.push_back(Ok(20, 3, 0.2, 0.8, {0.3, 0.3}));            // tpot 0.3
  rs.push_back(Ok(30, 1, 0.4, 0.4, {}));                    // one token: no TPOT
  RequestResult failed;
  failed.prompt_len = 99;
  failed.error = "HTTP 400";
  rs.push_back(failed);
  BenchMetrics m = ComputeMetrics(rs, 2.0, {99});
  EXPECT_EQ(m.completed, 3);
  EXPECT_EQ(m.failed, 1);
  EXPECT_EQ(m.total_input, 60);  // failed requests count for nothing
  EXPECT_EQ(m.total_output, 9);
  EXPECT_DOUBLE_EQ(m.request_throughput, 1.5);
  EXPECT_DOUBLE_EQ(m.output_throughput, 4.5);
  EXPECT_DOUBLE_EQ(m.total_token_throughput, 34.5);
  EXPECT_NEAR(m.ttft.mean, (100.0 + 200.0 + 400.0) / 3, 1e-9);
  EXPECT_NEAR(m.ttft.median, 200.0, 1e-9);
  EXPECT_NEAR(m.tpot.mean, 200.0, 1e-9);  // mean of 100 and 300
  EXPECT_NEAR(m.itl.mean, (0.4 + 0.6) / 6 * 1000, 1e-9);
  EXPECT_NEAR(m.itl.median, 100.0, 1e-9);
  EXPECT_NEAR(m.e2el.mean, (500.0 + 800.0 + 400.0) / 3, 1e-9);
}

TEST(BenchStatsTest, ReportHasVllmLayout) {
  std::vector<RequestResult> rs = {Ok(10, 4, 0.05, 0.35, {0.1, 0.1, 0.1})};
  BenchInfo info;
  info.max_concurrency = 4;
  info.request_rate = INFINITY;
  std::string r = FormatReport(ComputeMetrics(rs, 1.0, {99}), info);
  EXPECT_EQ(r.rfind("============ Serving Benchmark Result ============\n", 0), 0u) << r;
  EXPECT_NE(r.find("Successful requests:                     1         \n"), std::string::npos) << r;
  EXPECT_NE(r.find("Maximum request concurrency:             4 "), std::string::npos);
  EXPECT_EQ(r.find("Request rate configured"), std::string::npos);
  EXPECT_NE(r.find("Benchmark duration (s):                  1.00 "), std::string::npos);
  EXPECT_NE(r.find("Total generated tokens:                  4 "), std::string::npos);
  EXPECT_NE(r.find("Output token throughput (tok/s):         4.00 "), std::string::npos);
  EXPECT_NE(r.find("Total Token throughput (tok/s):          14.00 "), std::string::npos);
  EXPECT_NE(r.find("---------------Time to First Token----------------\n"), std::string::npos);
  EXPECT_NE(r.find("-----Time per Output Token (excl. 1st token)------\n"), std::string::npos);
  EXPECT_NE(r.find("---------------Inter-token Latency----------------\n"), std::string::npos);
  EXPECT_NE(r.find("Mean TTFT (ms):                          50.00 "), std::string::npos) << r;
  EXPECT_NE(r.find("P99 TPOT (ms):                           100.00"), std::string::npos) << r;
  EXPECT_NE(r.find("Median ITL (ms):                         100.00"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 51), std::string(50, '=') + "\n");
}

TEST(BenchStatsTest, ResultJsonFields) {
  RequestResult failed;
  failed.prompt_len = 8;
  failed.error = "boom";
  std::vector<RequestResult> rs = {Ok(8, 2, 0.01, 0.03, {0.02}), failed};
  BenchInfo info;
  info.request_rate = INFINITY;
  auto j = ResultJson(ComputeMetrics(rs, 0.5, {50, 99}), info, rs);
  EXPECT_EQ(j["completed"], 1);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["total_output_tokens"], 2);
  EXPECT_EQ(j["request_rate"], "inf");
  EXPECT_TRUE(j["max_concurrency"].is_null());
  EXPECT_TRUE(j.contains("p50_ttft_ms"));
  EXPECT_TRUE(j.contains("p99_itl_ms"));
  EXPECT_EQ(j["output_lens"], nlohmann::json::array({2, 0}));
  EXPECT_EQ(j["errors"][1], "boom");
}

TEST(BenchDatasetTest, PromptsAreSeededAndFromTheAllowedIds) {
  const std::vector<int32_t> allowed = {5, 7, 11, 13};
  auto a = RandomPrompts(20, 33, allowed, 1);
  EXPECT_EQ(a, RandomPrompts(20, 33, allowed, 1));
  EXPECT_NE(a, RandomPrompts(20, 33, allowed, 2));
  std::set<int32_t> seen;
  for (const auto& p : a) {
    ASSERT_EQ(p.size(), 33u);
    for (int32_t t : p) {
      EXPECT_TRUE(t == 5 || t == 7 || t == 11 || t == 13) << t;
      seen.insert(t);
    }
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_NE(a[0], a[1]);
}

TEST(BenchDatasetTest, PoissonArrivals) {
  auto inf = ArrivalOffsets(5, INFINITY, 0);
  EXPECT_EQ(inf, std::vector<double>(5, 0.0));
  auto offsets = ArrivalOffsets(20000, 50.0, 3);
  EXPECT_EQ(offsets[0], 0.0);
  for (size_t i = 1; i < offsets.size(); ++i) ASSERT_GE(offsets[i], offsets[i - 1]);
  // 19999 exponential gaps of mean 1/50 s: the total is 400 s within a few standard deviations.
  EXPECT_NEAR(offsets.back(), 19999.0 / 50.0, 4 * std::sqrt(19999.0) / 50.0);
  EXPECT_EQ(offsets, ArrivalOffsets(20000, 50.0, 3));
}

}  // namespace
}  // namespace gemmad::cli
