// Prometheus text: Go float strings, vLLM names, histogram shape.
#include "server/prometheus.h"

#include <gtest/gtest.h>

namespace gemmad::server {
namespace {

TEST(PrometheusTest, GoFloatLikePrometheusClient) {
  EXPECT_EQ(GoFloat(0), "0.0");
  EXPECT_EQ(GoFloat(1), "1.0");
  EXPECT_EQ(GoFloat(0.001), "0.001");
  EXPECT_EQ(GoFloat(2560), "2560.0");
  EXPECT_EQ(GoFloat(1234567), "1.234567e+06");
  EXPECT_EQ(GoFloat(1767225600), "1.7672256e+09");
  EXPECT_EQ(GoFloat(1e-05), "1e-05");
  EXPECT_EQ(GoFloat(0.25), "0.25");
}

TEST(PrometheusTest, FormatsGaugesCountersAndHistograms) {
  engine::EngineMetrics m;
  m.num_requests_running = 3;
  m.prompt_tokens = 10;
  m.request_success.stop = 2;
  m.time_to_first_token_seconds.Observe(0.003);
  m.time_to_first_token_seconds.Observe(0.5);
  std::string text = FormatPrometheus(m, {"google/gemma-4-E2B-it", 100.0});
  EXPECT_NE(text.find("# TYPE vllm:num_requests_running gauge\n"
                      "vllm:num_requests_running{model_name=\"google/gemma-4-E2B-it\",engine=\"0\"} 3.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:prompt_tokens_total{model_name=\"google/gemma-4-E2B-it\",engine=\"0\"} 10.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:prompt_tokens_created{model_name=\"google/gemma-4-E2B-it\",engine=\"0\"} 100.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:request_success_total{model_name=\"google/gemma-4-E2B-it\",engine=\"0\","
                      "finished_reason=\"stop\"} 2.0\n"),
            std::string::npos);
  const std::string p = "vllm:time_to_first_token_seconds_bucket{model_name=\"google/gemma-4-E2B-it\",engine=\"0\",";
  EXPECT_NE(text.find(p + "le=\"0.001\"} 0.0\n"), std::string::npos);
  EXPECT_NE(text.find(p + "le=\"0.005\"} 1.0\n"), std::string::npos);
  EXPECT_NE(text.find(p + "le=\"0.5\"} 2.0\n"), std::string::npos);
  EXPECT_NE(text.find(p + "le=\"2560.0\"} 2.0\n"), std::string::npos);
  EXPECT_NE(text.find(p + "le=\"+Inf\"} 2.0\n"), std::string::npos);
  EXPECT_NE(text.find("vllm:time_to_first_token_seconds_count{model_name=\"google/gemma-4-E2B-it\",engine=\"0\"} 2.0\n"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:time_to_first_token_seconds_sum{model_name=\"google/gemma-4-E2B-it\",engine=\"0\"} 0.503\n"),
            std::string::npos);
}

}  // namespace
}  // namespace gemmad::server
