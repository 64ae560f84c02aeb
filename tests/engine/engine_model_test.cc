// The engine over the real Gemma 4 forward pass (ModelRunner) on tiny checkpoints (Gemma 4 and the
// Gemma 3 preset g1): batched, chunked, prefix-cached and preempted greedy runs equal sequential ones; with the transformers
// golden for T1 (tests/golden/gemma4/t1) the greedy continuation equals the reference, on the
// CPU backend and on the scalar reference backend (kernels/backend.h: forward pass and sampling),
// and seeded random sampling draws the same tokens on both.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "cli/model_engine.h"
#include "engine_test_util.h"
#include "kernels/backend.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "runner/model_runner.h"

namespace gemmad::engine::testing {
namespace {

struct TinyEngineOptions {
  int64_t blocks = 96;  // per group, null block included
  int32_t block_size = 4;
  int32_t budget = 16;
  int32_t max_num_seqs = 8;
  bool caching = true;
  int threads = 2;  // > 1: sampling of a step runs on the pool
  const kernels::Backend* backend = nullptr;  // nullptr: the CPU backend
  // When valid, the engine's first step waits for it (a workload submitted while it is held all
  // arrives before any request runs: tests of preemption need the whole workload in the KV at once).
  std::shared_future<void> first_step_gate;
};

std::string RandomCheckpoint(const std::string& preset) {
  const std::string dir = ::testing::TempDir() + "/engine_model_" + preset;
  if (!std::filesystem::exists(dir + "/model.safetensors")) {
    auto p = model::gemma4::FindPreset(preset);
    EXPECT_TRUE(p.ok());
    model::gemma4::RandomCheckpointOptions opt;
    opt.dtype = tensor::DType::kF32;
    opt.seed = 3;
    Status s = model::gemma4::WriteRandomCheckpoint(dir, p->config, opt);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  return dir;
}

std::unique_ptr<Engine> ModelEngine(const std::string& dir, const TinyEngineOptions& o) {
  auto model = model::gemma4::Model::Load(dir);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return nullptr;
  const auto spec = (*model)->MakeKvCacheSpec(o.block_size);
  std::vector<int64_t> blocks(spec.groups.size(), o.blocks);
  kv::KvCacheConfig kv = runner::KvConfigForSpec(spec, blocks, o.caching);
  EngineConfig cfg;
  cfg.kv = kv;
  cfg.scheduler = {o.max_num_seqs, o.budget, (*model)->config().max_position_embeddings};
  cfg.eos_token_id = static_cast<int32_t>((*model)->config().eos_token_ids.at(0));
  // Pools live until the process ends (an engine's runner keeps a raw pointer).
  static std::deque<std::unique_ptr<kernels::ThreadPool>> pools;
  pools.push_back(std::make_unique<kernels::ThreadPool>(o.threads));
  auto runner = runner::ModelRunner::Create(std::move(*model), kv, {pools.back().get(), o.backend});
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  if (!runner.ok()) return nullptr;
  std::unique_ptr<runner::Runner> run = std::move(*runner);
  if (o.first_step_gate.valid()) run = std::make_unique<GatedRunner>(std::move(run), o.first_step_gate);
  auto engine = std::make_unique<Engine>(cfg, std::move(run));
  EXPECT_TRUE(engine->Start().ok());
  return engine;
}

EngineRequest Greedy(std::vector<int32_t> prompt, int32_t max_tokens) {
  EngineRequest r = Request(std::move(prompt), max_tokens);
  r.sampling.ignore_eos = true;
  r.sampling.logprobs = 3;
  return r;
}

std::vector<EngineRequest> Workload(int vocab) {
  std::vector<EngineRequest> reqs;
  auto shared = Prompt(18, 77, vocab);
  for (int i = 0; i < 8; ++i) {
    auto p = Prompt(3 + 5 * i, i, vocab);  // 3 .. 38 tokens: well past the windows (4 / 6)
    if (i % 2) p.insert(p.begin(), shared.begin(), shared.end());
    reqs.push_back(Greedy(p, 10));
  }
  return reqs;
}

void ExpectSame(const std::vector<Choice>& got, const std::vector<Choice>& want, int i) {
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].tokens, want[0].tokens) << "request " << i;
  ASSERT_EQ(got[0].logprobs.size(), want[0].logprobs.size());
  for (size_t k = 0; k < want[0].logprobs.size(); ++k) {
    EXPECT_NEAR(got[0].logprobs[k].logprob, want[0].logprobs[k].logprob, 1e-4) << "request " << i << " token " << k;
  }
}

// All at once on an engine configured by `o` versus each alone with ample budget and KV. The whole
// workload is submitted before the first step runs (however slowly this thread submits).
void BatchedEqualsSequential(const std::string& preset, const TinyEngineOptions& o, int64_t* preemptions) {
  const std::string dir = RandomCheckpoint(preset);
  std::promise<void> release;
  TinyEngineOptions gated = o;
  gated.first_step_gate = release.get_future().share();
  auto engine = ModelEngine(dir, gated);
  ASSERT_NE(engine, nullptr);
  auto reqs = Workload(engine->limits().vocab_size);
  std::vector<std::unique_ptr<RequestStream>> streams;
  for (auto& r : reqs) {
    auto s = engine->Submit(r);
    if (!s.ok()) release.set_value();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    streams.push_back(std::move(*s));
  }
  release.set_value();
  std::vector<std::vector<Choice>> got;
  for (auto& s : streams) got.push_back(Collect(*s, std::chrono::seconds(120)));
  *preemptions = static_cast<int64_t>(engine->Metrics().num_preemptions);
  TinyEngineOptions alone;
  alone.blocks = 256;
  alone.budget = 256;
  alone.caching = false;
  alone.threads = 1;
  auto ref_engine = ModelEngine(dir, alone);
  for (size_t i = 0; i < reqs.size(); ++i) ExpectSame(got[i], RunOne(*ref_engine, reqs[i]), static_cast<int>(i));
}

TEST(EngineModel, T1BatchedChunkedCachedEqualsSequential) {
  int64_t preemptions = 0;
  BatchedEqualsSequential("t1", TinyEngineOptions{}, &preemptions);
}

TEST(EngineModel, T3KvSharingMoeEqualsSequential) {
  int64_t preemptions = 0;
  BatchedEqualsSequential("t3", TinyEngineOptions{}, &preemptions);
}

TEST(EngineModel, T1PreemptionKeepsOutputs) {
  TinyEngineOptions tight;
  tight.blocks = 20;  // 19 usable blocks of 4 tokens per group for 8 sequences of up to 66 tokens
  int64_t preemptions = 0;
  BatchedEqualsSequential("t1", tight, &preemptions);
  EXPECT_GT(preemptions, 0);
}

TEST(EngineModel, T1PrefixCacheHitsAndMatches) {
  const std::string dir = RandomCheckpoint("t1");
  auto engine = ModelEngine(dir, {});
  auto prompt = Prompt(30, 5, engine->limits().vocab_size);
  auto first = RunOne(*engine, Greedy(prompt, 6));
  auto second = RunOne(*engine, Greedy(prompt, 6));
  EXPECT_EQ(second[0].num_cached_tokens, 28);
  ExpectSame(second, first, 0);
  EXPECT_GT(engine->Metrics().prefix_cache_hits, 0u);
}

// Gemma 3 (preset g1): the last layer is sliding, window 8; chunked, batched and prefix-cached
// requests give what each alone gives.
TEST(EngineModel, G1Gemma3BatchedChunkedCachedEqualsSequential) {
  int64_t preemptions = 0;
  BatchedEqualsSequential("g1", TinyEngineOptions{}, &preemptions);
}

TEST(EngineModel, G1Gemma3PrefixCacheHitsAndMatches) {
  const std::string dir = RandomCheckpoint("g1");
  auto engine = ModelEngine(dir, {});
  auto prompt = Prompt(30, 5, engine->limits().vocab_size);
  auto first = RunOne(*engine, Greedy(prompt, 6));
  auto second = RunOne(*engine, Greedy(prompt, 6));
  EXPECT_GT(second[0].num_cached_tokens, 8);  // more than one window's worth
  ExpectSame(second, first, 0);
  EXPECT_GT(engine->Metrics().prefix_cache_hits, 0u);
}

TEST(EngineModel, CreateModelEnginePlansKvAndServes) {
  cli::ModelEngineOptions o;
  o.model_dir = RandomCheckpoint("t1");
  o.block_size = 4;
  o.num_threads = 2;
  o.kv_cache_bytes = 1 << 20;
  auto created = cli::CreateModelEngine(o);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->engine->limits().max_model_len, 256);
  EXPECT_EQ(created->engine->limits().max_kv_sequence_tokens, 256);
  EXPECT_LE(created->kv_cache_bytes, o.kv_cache_bytes);
  auto out = RunOne(*created->engine, Greedy(Prompt(20, 1, 512), 8));
  EXPECT_EQ(out[0].tokens.size(), 8u);
  // Compare with the hand-built engine of the same checkpoint.
  auto ref = ModelEngine(o.model_dir, {});
  ExpectSame(out, RunOne(*ref, Greedy(Prompt(20, 1, 512), 8)), 0);

  o.kv_cache_bytes = 64 << 10;  // ~44 tokens, far less than 256
  auto small = cli::CreateModelEngine(o);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(small.status().message().find("Lower --max-model-len to"), std::string::npos) << small.status().message();
  o.model_dir = ::testing::TempDir() + "/no_such_model";
  EXPECT_FALSE(cli::CreateModelEngine(o).ok());
}

class EngineModelOnBackend : public ::testing::TestWithParam<std::string> {
 protected:
  TinyEngineOptions Options() const {
    TinyEngineOptions o;
    o.backend = kernels::FindBackend(GetParam());
    EXPECT_NE(o.backend, nullptr) << GetParam();
    return o;
  }
};

TEST_P(EngineModelOnBackend, T1MatchesTheTransformersGreedyGolden) {
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4/t1";
  if (!std::filesystem::exists(dir + "/golden_f32.json")) GTEST_SKIP() << "no T1 golden at " << dir;
  std::ifstream f(dir + "/golden_f32.json");
  nlohmann::json golden = nlohmann::json::parse(f);
  auto engine = ModelEngine(dir, Options());
  ASSERT_NE(engine, nullptr);
  std::vector<std::unique_ptr<RequestStream>> streams;
  std::vector<std::vector<int32_t>> want;
  for (const auto& p : golden.at("prompts")) {
    auto ids = p.at("greedy_ids").get<std::vector<int32_t>>();
    // Non-degenerate (make_gemma4_goldens.py check_greedy): a run of one token would also come out
    // of an engine that mixed up the requests' contexts.
    EXPECT_GE(std::set<int32_t>(ids.begin(), ids.end()).size(), 16u);
    auto s = engine->Submit(Greedy(p.at("token_ids").get<std::vector<int32_t>>(), static_cast<int32_t>(ids.size())));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    streams.push_back(std::move(*s));
    want.push_back(ids);
  }
  ASSERT_FALSE(want.empty());
  for (size_t i = 0; i < streams.size(); ++i) EXPECT_EQ(Collect(*streams[i])[0].tokens, want[i]) << i;
}

// Temperature sampling (the ExpShifted op) with a seed: the reference backend draws what the CPU
// backend draws.
TEST_P(EngineModelOnBackend, T1SeededSamplingEqualsTheCpuBackend) {
  const std::string dir = RandomCheckpoint("t1");
  std::vector<std::vector<int32_t>> got[2];
  for (int run = 0; run < 2; ++run) {
    TinyEngineOptions o = run == 0 ? TinyEngineOptions{} : Options();
    auto engine = ModelEngine(dir, o);
    ASSERT_NE(engine, nullptr);
    for (int salt = 0; salt < 3; ++salt) {
      EngineRequest r = Request(Prompt(9, salt), 12);
      r.sampling.temperature = 0.8f;
      r.sampling.seed = 7 + salt;
      r.sampling.ignore_eos = true;
      got[run].push_back(RunOne(*engine, std::move(r))[0].tokens);
    }
  }
  EXPECT_EQ(got[1], got[0]);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineModelOnBackend, ::testing::Values("cpu", "reference"));

}  // namespace
}  // namespace gemmad::engine::testing
