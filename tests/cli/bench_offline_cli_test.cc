// `gemmad bench latency` and `gemmad bench throughput` through the real binary on a tiny random
// checkpoint (make-test-model --preset t1): exit 0, vLLM's printed lines parse and agree with
// the --output-json fields, the counts are consistent (latencies = num_iters, ttfts = num_iters
// x batch, output tokens = num_prompts x output_len), --quantization reaches the engine, and bad
// flags (a --tensor-parallel-size the model cannot be split by too) are one line on stderr with
// exit code 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "cli_runner.h"

namespace gemmad {
namespace {

using ::testing::HasSubstr;
using testing_cli::CliResult;
using testing_cli::RunGemmad;

class BenchOfflineCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    model_ = new std::string(TestTempPath("bench_offline_t1"));
    auto r = RunGemmad({"make-test-model", *model_, "--preset", "t1", "--seed", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete model_; }
  static const std::string& model() { return *model_; }
  static std::string* model_;
};
std::string* BenchOfflineCli::model_ = nullptr;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The number in the first line of `out` that matches `pattern` (one capture group).
double Number(const std::string& out, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(pattern))) {
    ADD_FAILURE() << "no line matches '" << pattern << "' in:\n" << out;
    return -1;
  }
  return std::stod(m[1]);
}

constexpr const char* kNum = "([0-9.eE+-]+)";

TEST_F(BenchOfflineCli, LatencyPrintsVllmLinesAndConsistentJson) {
  const std::string json = TestTempPath("bench_latency.json");
  auto r = RunGemmad({"bench", "latency", model(), "--input-len", "8", "--output-len", "5", "--batch-size", "3",
                      "--num-iters-warmup", "1", "--num-iters", "4", "--threads", "2", "--seed", "7",
                      "--output-json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Warming up...\n"));
  const double avg = Number(r.out, std::string("\nAvg latency: ") + kNum + " seconds\n");
  std::vector<double> printed;
  for (int p : {10, 25, 50, 75, 90, 99}) {
    printed.push_back(Number(r.out, "\n" + std::to_string(p) + "% percentile latency: " + kNum + " seconds\n"));
  }
  const double ttft = Number(r.out, std::string("\nAvg time to first token: ") + kNum + " seconds\n");
  Number(r.out, std::string("\nAvg batch prefill time: ") + kNum + " seconds \\(" + kNum + " prompt tokens/s\\)\n");
  const double tpot_ms = Number(r.out, std::string("\nAvg decode step time \\(TPOT\\): ") + kNum + " ms\n");
  const double decode = Number(r.out, std::string("\nDecode throughput: ") + kNum +
                                          " output tokens/s \\(batch size 3\\)\n");

  const nlohmann::json j = ReadJson(json);
  const auto latencies = j.at("latencies").get<std::vector<double>>();
  ASSERT_EQ(latencies.size(), 4u);
  const double mean = std::accumulate(latencies.begin(), latencies.end(), 0.0) / 4;
  EXPECT_NEAR(j.at("avg_latency").get<double>(), mean, 1e-12);
  EXPECT_EQ(j.at("avg_latency").get<double>(), avg);  // printed with round-trip precision
  const auto& pct = j.at("percentiles");
  ASSERT_EQ(pct.size(), 6u);
  const double lo = *std::min_element(latencies.begin(), latencies.end());
  const double hi = *std::max_element(latencies.begin(), latencies.end());
  double prev = lo;
  size_t i = 0;
  for (const char* key : {"10", "25", "50", "75", "90", "99"}) {
    const double v = pct.at(key).get<double>();
    EXPECT_EQ(v, printed[i++]) << key;
    EXPECT_GE(v, prev) << key;
    EXPECT_LE(v, hi) << key;
    prev = v;
  }
  const auto ttfts = j.at("ttfts").get<std::vector<double>>();
  ASSERT_EQ(ttfts.size(), 12u);  // num_iters x batch_size
  for (size_t k = 0; k < ttfts.size(); ++k) {
    EXPECT_GT(ttfts[k], 0) << k;
    EXPECT_LT(ttfts[k], latencies[k / 3]) << k;  // the first token comes before the batch ends
  }
  EXPECT_EQ(j.at("avg_ttft").get<double>(), ttft);
  EXPECT_GT(j.at("avg_tpot").get<double>(), 0);
  EXPECT_NEAR(j.at("avg_tpot").get<double>() * 1e3, tpot_ms, 1e-3);
  EXPECT_GT(j.at("decode_tokens_per_second").get<double>(), 0);
  EXPECT_NEAR(j.at("decode_tokens_per_second").get<double>(), decode, 0.01);
  // Each iteration's prefill time is its latest first token, so their mean bounds the mean TTFT.
  EXPECT_GE(j.at("avg_prefill_time").get<double>(), j.at("avg_ttft").get<double>());
  EXPECT_EQ(j.at("output_tokens_per_iteration"), 15);
  EXPECT_EQ(j.at("num_cached_prompt_tokens"), 0);  // fresh prompts every iteration
  EXPECT_EQ(j.at("batch_size"), 3);
  EXPECT_EQ(j.at("num_iters"), 4);
  EXPECT_EQ(j.at("num_iters_warmup"), 1);
  EXPECT_EQ(j.at("quantization"), "none");
  EXPECT_EQ(j.at("threads"), 2);
  EXPECT_EQ(j.at("max_model_len"), 13);  // input + output by default
}

TEST_F(BenchOfflineCli, LatencyWithModelFlagQuantizationAndOneOutputToken) {
  for (const char* q : {"int8", "int4"}) {
    SCOPED_TRACE(q);
    const std::string json = TestTempPath(std::string("bench_latency_") + q + ".json");
    auto r = RunGemmad({"bench", "latency", "--model", model(), "--quantization", q, "--input-len", "4",
                        "--output-len", "1", "--batch-size", "1", "--num-iters-warmup", "0", "--num-iters", "2",
                        "--threads", "1", "--output-json", json});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("Avg decode step time (TPOT): n/a (--output-len 1)\n"));
    const nlohmann::json j = ReadJson(json);
    EXPECT_EQ(j.at("quantization"), q);
    EXPECT_EQ(j.at("latencies").size(), 2u);
    EXPECT_TRUE(j.at("avg_tpot").is_null());
    EXPECT_TRUE(j.at("decode_tokens_per_second").is_null());
    EXPECT_EQ(j.at("output_tokens_per_iteration"), 1);
  }
}

// --kv-cache-dtype reaches the engine as `gemmad serve`'s does: the start-up log names the cache
// dtype of every KV group (bfloat16 by default for this bf16 checkpoint, FP8 E4M3 with fp8).
TEST_F(BenchOfflineCli, LatencyTakesTheKvCacheDtype) {
  for (const auto& [flag, dtype] : {std::pair<const char*, const char*>{"auto", "BF16)"}, {"fp8", "F8_E4M3)"}}) {
    SCOPED_TRACE(flag);
    auto r = RunGemmad({"bench", "latency", model(), "--kv-cache-dtype", flag, "--input-len", "4", "--output-len", "2",
                        "--batch-size", "1", "--num-iters-warmup", "0", "--num-iters", "1", "--threads", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr(std::string("KV group sliding")));
    std::istringstream lines(r.err);
    int groups = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.find("KV group ") == std::string::npos) continue;
      ++groups;
      EXPECT_THAT(line, HasSubstr(dtype));
    }
    EXPECT_EQ(groups, 2);
  }
  auto bad = RunGemmad({"bench", "latency", model(), "--kv-cache-dtype", "fp8_e5m2", "--input-len", "4",
                        "--output-len", "2"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--kv-cache-dtype"));
}

// A GGUF file as MODEL: the prompt ids come from the file's own tokenizer (its metadata; the
// weights are loaded once, by the engine).
TEST_F(BenchOfflineCli, LatencyOnAGgufFile) {
  const std::string gguf = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf/gemma4_t1_q4_0.gguf";
  auto r = RunGemmad({"bench", "latency", gguf, "--input-len", "5", "--output-len", "3", "--batch-size", "2",
                      "--num-iters-warmup", "0", "--num-iters", "1", "--threads", "1", "--kv-cache-dtype", "bfloat16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The lines are there (on a model this small, under load, the decode share can round to zero).
  EXPECT_GT(Number(r.out, std::string("Avg latency: ") + kNum + " seconds"), 0.0);
  EXPECT_GE(Number(r.out, std::string("Decode throughput: ") + kNum), 0.0);
}

TEST_F(BenchOfflineCli, ThroughputPrintsVllmLinesAndConsistentJson) {
  const std::string json = TestTempPath("bench_throughput.json");
  auto r = RunGemmad({"bench", "throughput", model(), "--input-len", "6", "--output-len", "5", "--num-prompts", "10",
                      "--max-num-seqs", "4", "--threads", "2", "--output-json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(std::string("(^|\n)Throughput: ") + kNum + " requests/s, " + kNum +
                                                     " total tokens/s, " + kNum + " output tokens/s\n")))
      << r.out;
  const double rps = std::stod(m[2]), tps = std::stod(m[3]), ops = std::stod(m[4]);
  EXPECT_THAT(r.out, HasSubstr("\nTotal num prompt tokens:  60\n"));
  EXPECT_THAT(r.out, HasSubstr("\nTotal num output tokens:  50\n"));

  const nlohmann::json j = ReadJson(json);
  const double elapsed = j.at("elapsed_time").get<double>();
  ASSERT_GT(elapsed, 0);
  EXPECT_EQ(j.at("num_requests"), 10);
  EXPECT_EQ(j.at("total_prompt_tokens"), 60);
  EXPECT_EQ(j.at("total_output_tokens"), 50);  // num_prompts x output_len
  EXPECT_EQ(j.at("total_num_tokens"), 110);
  EXPECT_NEAR(j.at("requests_per_second").get<double>(), 10 / elapsed, 1e-9 * (10 / elapsed));
  EXPECT_NEAR(j.at("tokens_per_second").get<double>(), 110 / elapsed, 1e-9 * (110 / elapsed));
  EXPECT_NEAR(j.at("output_tokens_per_second").get<double>(), 50 / elapsed, 1e-9 * (50 / elapsed));
  EXPECT_NEAR(rps, j.at("requests_per_second").get<double>(), 0.006);
  EXPECT_NEAR(tps, j.at("tokens_per_second").get<double>(), 0.006);
  EXPECT_NEAR(ops, j.at("output_tokens_per_second").get<double>(), 0.006);
  EXPECT_GT(j.at("mean_ttft").get<double>(), 0);
  EXPECT_LT(j.at("mean_ttft").get<double>(), elapsed);
  EXPECT_EQ(j.at("max_num_seqs"), 4);
}

// A usage error: exit 2 and exactly one line on stderr that contains `needle`.
void ExpectUsageError(const std::vector<std::string>& args, const std::string& needle) {
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  SCOPED_TRACE(joined);
  const CliResult r = RunGemmad(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(needle));
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(BenchOfflineCli, BadFlagsAreOneLineAndExitTwo) {
  const std::string& m = model();
  ExpectUsageError({"bench", "latency", m, "--batch-size", "0"}, "--batch-size");
  ExpectUsageError({"bench", "latency", m, "--quantization", "fp8"}, "--quantization: invalid choice: 'fp8'");
  ExpectUsageError({"bench", "latency", m, "--no-such-flag", "1"}, "--no-such-flag");
  ExpectUsageError({"bench", "latency", m, "--num-iters", "0"}, "--num-iters");
  ExpectUsageError({"bench", "latency", m, "--input-len", "x"}, "--input-len");
  ExpectUsageError({"bench", "latency", m, "--threads", "0"}, "--threads");
  ExpectUsageError({"bench", "latency", m, "--input-len", "8", "--output-len", "8", "--max-model-len", "10"},
                   "--max-model-len");
  ExpectUsageError({"bench", "latency", "--input-len", "8"}, "missing MODEL");
  ExpectUsageError({"bench", "latency", m, "--model", m + "x"}, "--model");
  ExpectUsageError({"bench", "throughput", m, "--num-prompts", "0"}, "--num-prompts");
  ExpectUsageError({"bench", "throughput", m, "--output-len", "-1"}, "--output-len");
  ExpectUsageError({"bench", "throughput", m, "--quantization", "fp8"}, "--quantization");
  ExpectUsageError({"bench", "throughput", m, "--dataset-name", "sharegpt"}, "--dataset-name");
  ExpectUsageError({"bench", "throughput", m, "--max-num-seqs", "0"}, "--max-num-seqs");
  // Checked before relaunching under mpirun: t1 has 4 attention heads.
  ExpectUsageError({"bench", "latency", m, "-tp", "0"}, "--tensor-parallel-size");
  ExpectUsageError({"bench", "latency", m, "-tp", "3"},
                   "tensor parallel size 3 does not divide the 4 attention heads of this model");
  ExpectUsageError({"bench", "throughput", m, "--tensor-parallel-size", "3"}, "does not divide");
  ExpectUsageError({"bench", "lat"}, "unknown benchmark 'lat'");
}

TEST_F(BenchOfflineCli, HelpListsTheFlags) {
  for (const char* which : {"latency", "throughput"}) {
    auto r = RunGemmad({"bench", which, "--help"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("--input-len"));
    EXPECT_THAT(r.out, HasSubstr("--quantization"));
    EXPECT_THAT(r.out, HasSubstr("--output-json"));
  }
  auto r = RunGemmad({"bench", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("latency"));
  EXPECT_THAT(r.out, HasSubstr("throughput"));
}

}  // namespace
}  // namespace gemmad
