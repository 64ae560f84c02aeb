// Tests of ServeOptions: startup validation and the environment variables vLLM reads.
#include "cli/serve_options.h"

#include <gtest/gtest.h>

#include <map>

#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

std::map<std::string, std::string>& FakeEnv() {
  static std::map<std::string, std::string> env;
  return env;
}
std::optional<std::string> LookupFake(const char* name) {
  auto it = FakeEnv().find(name);
  if (it == FakeEnv().end()) return std::nullopt;
  return it->second;
}

Result<ServeOptions> Build(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  FakeEnv() = std::move(env);
  auto flags = ParseFlags(args, ServeFlagTable(), 1);
  if (!flags.ok()) return flags.status();
  return BuildServeOptions(*flags, &LookupFake);
}

TEST(ServeOptionsTest, DefaultsMatchVllm) {
  auto o = Build({"google/gemma-4-E2B-it"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->model, "google/gemma-4-E2B-it");
  EXPECT_EQ(o->served_model_names, std::vector<std::string>{"google/gemma-4-E2B-it"});
  EXPECT_EQ(o->port, 8000);
  EXPECT_EQ(o->host, "0.0.0.0");
  EXPECT_EQ(o->max_logprobs, 20);
  EXPECT_TRUE(o->enable_prefix_caching);
  EXPECT_FALSE(o->max_model_len.has_value());
  EXPECT_EQ(o->kv_cache_bytes, int64_t{4} << 30);
  EXPECT_EQ(o->engine_iteration_timeout_s, 60);
  EXPECT_TRUE(o->api_keys.empty());
}

TEST(ServeOptionsTest, ModelByFlagOrPositional) {
  EXPECT_EQ(Build({"--model", "x"})->model, "x");
  EXPECT_EQ(Build({"x", "--model", "x"})->model, "x");
  EXPECT_FALSE(Build({"x", "--model", "y"}).ok());
  auto none = Build({"--port", "1"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no model given"), std::string::npos);
}

TEST(ServeOptionsTest, QuantizationMethods) {
  using model::gemma4::WeightQuantization;
  EXPECT_EQ(Build({"m"})->quantization, WeightQuantization::kNone);
  EXPECT_EQ(Build({"m", "--quantization", "int8"})->quantization, WeightQuantization::kInt8);
  EXPECT_EQ(Build({"m", "-q", "int4"})->quantization, WeightQuantization::kInt4);
  EXPECT_EQ(Build({"m", "--quantization=none"})->quantization, WeightQuantization::kNone);
  auto ct = Build({"m", "--quantization", "compressed-tensors"});  // the checkpoint's own method
  ASSERT_TRUE(ct.ok()) << ct.status().ToString();
  EXPECT_EQ(ct->quantization, WeightQuantization::kNone);
  EXPECT_EQ(ct->checkpoint_quantization, "compressed-tensors");
  auto bad = Build({"m", "--quantization", "awq"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("quantization"), std::string::npos) << bad.status().message();
}

TEST(ServeOptionsTest, ApiKeyFromEnvUnlessGiven) {
  EXPECT_EQ(Build({"m"}, {{"VLLM_API_KEY", "env"}})->api_keys, std::vector<std::string>{"env"});
  EXPECT_EQ(Build({"m", "--api-key", "cli"}, {{"VLLM_API_KEY", "env"}})->api_keys, std::vector<std::string>{"cli"});
}

TEST(ServeOptionsTest, KvBudgetFromFlagOrEnv) {
  EXPECT_EQ(Build({"m"}, {{"VLLM_CPU_KVCACHE_SPACE", "2"}})->kv_cache_bytes, int64_t{2} << 30);
  EXPECT_EQ(Build({"m"}, {{"VLLM_CPU_KVCACHE_SPACE", "0.5"}})->kv_cache_bytes, int64_t{1} << 29);
  EXPECT_EQ(Build({"m", "--kv-cache-memory-bytes", "1G"}, {{"VLLM_CPU_KVCACHE_SPACE", "2"}})->kv_cache_bytes,
            int64_t{1} << 30);
  EXPECT_FALSE(Build({"m"}, {{"VLLM_CPU_KVCACHE_SPACE", "lots"}}).ok());
}

TEST(ServeOptionsTest, IterationTimeoutFromEnv) {
  EXPECT_EQ(Build({"m"}, {{"VLLM_ENGINE_ITERATION_TIMEOUT_S", "5"}})->engine_iteration_timeout_s, 5);
  EXPECT_FALSE(Build({"m"}, {{"VLLM_ENGINE_ITERATION_TIMEOUT_S", "-3"}}).ok());
}

TEST(ServeOptionsTest, MultiNodeRendezvousFlagsPointToMpirun) {
  EXPECT_TRUE(Build({"m", "--nnodes", "1", "--node-rank", "0", "--master-addr", "10.0.0.1"}).ok());
  for (std::vector<std::string> args : {std::vector<std::string>{"m", "--nnodes", "2"},
                                        std::vector<std::string>{"m", "--node-rank", "1"},
                                        std::vector<std::string>{"m", "--headless"}}) {
    auto o = Build(args);
    ASSERT_FALSE(o.ok()) << args[1];
    EXPECT_NE(o.status().message().find("mpirun -np N --host HOST1,HOST2 gemmad serve MODEL -tp N"), std::string::npos)
        << o.status().message();
  }
}

TEST(ServeOptionsTest, TensorParallelSizeIsKeptAndOtherParallelismRefused) {
  auto one = Build({"m", "--tensor-parallel-size", "1"});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->tensor_parallel_size, 1);
  auto four = Build({"m", "-tp", "4"});
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(four->tensor_parallel_size, 4);
  EXPECT_FALSE(Build({"m", "-tp", "0"}).ok());
  auto pp = Build({"m", "--pipeline-parallel-size", "2"});
  ASSERT_FALSE(pp.ok());
  EXPECT_NE(pp.status().message().find("--pipeline-parallel-size 2"), std::string::npos);
}

TEST(ServeOptionsTest, AutoToolChoiceNeedsAParser) {
  auto o = Build({"m", "--enable-auto-tool-choice"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--enable-auto-tool-choice requires --tool-call-parser to be set");
  EXPECT_TRUE(Build({"m", "--enable-auto-tool-choice", "--tool-call-parser", "gemma4"}).ok());
}

TEST(ServeOptionsTest, MaxModelLenForms) {
  EXPECT_EQ(*Build({"m", "--max-model-len", "32k"})->max_model_len, 32000);
  EXPECT_EQ(*Build({"m", "--max-model-len", "auto"})->max_model_len, -1);
  EXPECT_FALSE(Build({"m", "--max-model-len", "0"}).ok());
}

TEST(ServeOptionsTest, DtypeIsTheComputeDtype) {
  EXPECT_FALSE(Build({"m"})->compute_dtype.has_value());  // auto: the checkpoint's
  EXPECT_EQ(*Build({"m", "--dtype", "bfloat16"})->compute_dtype, tensor::DType::kBF16);
  EXPECT_EQ(*Build({"m", "--dtype", "float32"})->compute_dtype, tensor::DType::kF32);
  EXPECT_EQ(*Build({"m", "--dtype", "float"})->compute_dtype, tensor::DType::kF32);
  EXPECT_EQ(*Build({"m", "--dtype", "half"})->compute_dtype, tensor::DType::kBF16);  // cast, with a warning
  EXPECT_EQ(*Build({"m", "--dtype", "float16"})->compute_dtype, tensor::DType::kBF16);
  auto bad = Build({"m", "--dtype", "int8"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("invalid choice: 'int8'"), std::string::npos) << bad.status().message();
}

TEST(ServeOptionsTest, MmLimitsAllForms) {
  auto rich = Build({"m", "--limit-mm-per-prompt", R"({"image": {"count": 2, "width": 512}})"});
  ASSERT_TRUE(rich.ok()) << rich.status().ToString();
  EXPECT_EQ(rich->limit_mm_per_prompt.at("image"), 2);
  EXPECT_EQ(Build({"m", "--limit-mm-per-prompt.audio", "0"})->limit_mm_per_prompt.at("audio"), 0);
  EXPECT_FALSE(Build({"m", "--limit-mm-per-prompt", R"({"image": "many"})"}).ok());
}

TEST(ServeOptionsTest, IneffectiveFlagsAreListedForLogging) {
  auto o = Build({"m", "--gpu-memory-utilization", "0.9", "--async-scheduling", "--port", "1"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->ineffective_flags_set, (std::vector<std::string>{"gpu-memory-utilization", "async-scheduling"}));
}

TEST(ServeOptionsTest, ConfigFilesAreAClearError) {
  EXPECT_FALSE(Build({"m", "--config", "c.yaml"}).ok());
}

TEST(ServeOptionsTest, TransportFlags) {
  auto d = Build({"m"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->allowed_origins, std::vector<std::string>{"*"});
  EXPECT_EQ(d->allowed_methods, std::vector<std::string>{"*"});
  EXPECT_EQ(d->allowed_headers, std::vector<std::string>{"*"});
  EXPECT_FALSE(d->allow_credentials);
  EXPECT_EQ(d->ssl_cert_reqs, 0);
  EXPECT_TRUE(d->ssl_certfile.empty() && d->uds.empty() && d->root_path.empty());
  auto o = Build({"m", "--allowed-origins", R"(["https://a.example", "https://b.example"])", "--allow-credentials",
                  "--ssl-certfile", "c.pem", "--ssl-keyfile", "k.pem", "--ssl-cert-reqs", "2", "--uds", "/tmp/s",
                  "--root-path", "/api"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->allowed_origins, (std::vector<std::string>{"https://a.example", "https://b.example"}));
  EXPECT_TRUE(o->allow_credentials);
  EXPECT_EQ(o->ssl_cert_reqs, 2);
  EXPECT_EQ(o->ssl_keyfile, "k.pem");
  EXPECT_EQ(o->uds, "/tmp/s");
  EXPECT_EQ(o->root_path, "/api");
  EXPECT_TRUE(o->ineffective_flags_set.empty());
  // vLLM: json.loads lists; uvicorn asserts a certificate when a key is given; Python's ssl.VerifyMode.
  EXPECT_FALSE(Build({"m", "--allowed-origins", "https://a.example"}).ok());
  EXPECT_FALSE(Build({"m", "--allowed-methods", R"(["GET", 1])"}).ok());
  EXPECT_FALSE(Build({"m", "--ssl-keyfile", "k.pem"}).ok());
  EXPECT_FALSE(Build({"m", "--ssl-certfile", "c.pem", "--ssl-cert-reqs", "3"}).ok());
}

TEST(ServeOptionsTest, SslRefreshAndH11Limits) {
  auto d = Build({"m"});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->enable_ssl_refresh);
  EXPECT_EQ(d->h11_max_incomplete_event_size, 4194304);  // vLLM's H11_MAX_INCOMPLETE_EVENT_SIZE_DEFAULT
  EXPECT_EQ(d->h11_max_header_count, 256);                // vLLM's H11_MAX_HEADER_COUNT_DEFAULT
  auto o = Build({"m", "--ssl-certfile", "c.pem", "--enable-ssl-refresh", "--h11-max-incomplete-event-size",
                  "8192", "--h11-max-header-count", "16"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->enable_ssl_refresh);
  EXPECT_EQ(o->h11_max_incomplete_event_size, 8192);
  EXPECT_EQ(o->h11_max_header_count, 16);
  EXPECT_TRUE(o->ineffective_flags_set.empty());
  EXPECT_FALSE(Build({"m", "--h11-max-incomplete-event-size", "0"}).ok());
  EXPECT_FALSE(Build({"m", "--h11-max-incomplete-event-size", "4294967296"}).ok());
  EXPECT_FALSE(Build({"m", "--h11-max-header-count", "0"}).ok());
}

TEST(ServeOptionsTest, KvCacheDtype) {
  EXPECT_FALSE(Build({"m"})->kv_cache_dtype.has_value());  // auto: the compute dtype
  EXPECT_EQ(*Build({"m", "--kv-cache-dtype", "fp8"})->kv_cache_dtype, tensor::DType::kF8E4M3);
  EXPECT_EQ(*Build({"m", "--kv-cache-dtype", "fp8_e4m3"})->kv_cache_dtype, tensor::DType::kF8E4M3);
  EXPECT_EQ(*Build({"m", "--kv-cache-dtype", "bfloat16"})->kv_cache_dtype, tensor::DType::kBF16);
  EXPECT_EQ(*Build({"m", "--kv-cache-dtype", "float16"})->kv_cache_dtype, tensor::DType::kBF16);  // with a warning
  auto e5m2 = Build({"m", "--kv-cache-dtype", "fp8_e5m2"});
  ASSERT_FALSE(e5m2.ok());
  EXPECT_NE(e5m2.status().message().find("not supported on the CPU backend"), std::string::npos);
  auto bad = Build({"m", "--kv-cache-dtype", "int4"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("invalid choice: 'int4'"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace gemmad::cli
