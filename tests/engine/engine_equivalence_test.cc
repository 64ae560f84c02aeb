// The engine's outputs do not depend on how requests are batched, chunked, cached or
// preempted: every request equals its sequential run (greedy and seeded sampling).
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "base/rng.h"
#include "engine_test_util.h"

namespace gemmad::engine::testing {
namespace {

std::vector<EngineRequest> Workload(int count, int seed, int vocab) {
  std::vector<EngineRequest> reqs;
  Rng rng(static_cast<uint64_t>(seed));
  for (int i = 0; i < count; ++i) {
    // Prompts from 1 to 60 tokens (well past the window of 8), some sharing a prefix.
    std::vector<int32_t> prompt = Prompt(1 + static_cast<int>(rng.Below(60)), seed * 100 + i, vocab);
    if (i % 3 == 1) {
      auto shared = Prompt(24, seed, vocab);
      prompt.insert(prompt.begin(), shared.begin(), shared.end());
    }
    EngineRequest r = Request(prompt, 1 + static_cast<int32_t>(rng.Below(20)));
    if (i % 2 == 1) {  // seeded random sampling with penalties
      r.sampling.temperature = 0.9f;
      r.sampling.top_k = 20;
      r.sampling.seed = 1000 + i;
      r.sampling.frequency_penalty = 0.5f;
    }
    if (i % 5 == 0) r.sampling.logprobs = 2;
    reqs.push_back(std::move(r));
  }
  return reqs;
}

// Submits everything at once, then compares each request with its sequential run. The engine's
// first step is held until the whole workload is submitted: otherwise a slow submitting thread (a
// loaded CI machine) lets early requests finish alone, and the batching or preemption the caller
// asserts never happens (CI saw PreemptionKeepsOutputs with no preemption; 114 of 400 rounds with
// random submission delays of up to 3 ms had none).
void ExpectMatchesSequential(const TestEngineOptions& o, int count, int seed, int64_t* preemptions = nullptr,
                             int64_t* max_batch = nullptr) {
  runner::FakeRunner* fake = nullptr;
  std::promise<void> release;
  TestEngineOptions gated = o;
  gated.first_step_gate = release.get_future().share();
  auto engine = MakeEngine(gated, &fake);
  auto reqs = Workload(count, seed, o.vocab_size);
  std::vector<std::unique_ptr<RequestStream>> streams;
  for (const auto& r : reqs) {
    auto s = engine->Submit(r);
    if (!s.ok()) release.set_value();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    streams.push_back(std::move(*s));
  }
  release.set_value();
  std::vector<std::vector<Choice>> got;
  for (auto& s : streams) got.push_back(Collect(*s));
  for (size_t i = 0; i < reqs.size(); ++i) {
    auto ref = RunAlone(o, reqs[i]);
    ASSERT_EQ(got[i].size(), 1u);
    EXPECT_EQ(got[i][0].tokens, ref[0].tokens) << "request " << i;
    EXPECT_EQ(got[i][0].finish, ref[0].finish) << "request " << i;
    ASSERT_EQ(got[i][0].logprobs.size(), ref[0].logprobs.size());
    for (size_t k = 0; k < ref[0].logprobs.size(); ++k) {
      EXPECT_FLOAT_EQ(got[i][0].logprobs[k].logprob, ref[0].logprobs[k].logprob);
    }
  }
  EngineMetrics m = engine->Metrics();
  if (preemptions) *preemptions = static_cast<int64_t>(m.num_preemptions);
  if (max_batch) *max_batch = fake->max_batch_seqs();
}

TEST(EngineEquivalence, BatchedEqualsSequential) {
  TestEngineOptions o;
  int64_t max_batch = 0;
  ExpectMatchesSequential(o, 24, 1, nullptr, &max_batch);
  EXPECT_GT(max_batch, 1);
}

TEST(EngineEquivalence, ChunkedPrefillEqualsUnchunked) {
  TestEngineOptions o;
  o.max_num_batched_tokens = 5;  // every prompt above 5 tokens is chunked
  ExpectMatchesSequential(o, 12, 2);
}

TEST(EngineEquivalence, PrefixCachingOffEqualsOn) {
  TestEngineOptions o;
  o.prefix_caching = false;
  ExpectMatchesSequential(o, 12, 3);
  // And the on-case hits the cache on the shared prefixes (longer than the window).
  TestEngineOptions on;
  auto engine = MakeEngine(on);
  auto shared = Prompt(40, 9);
  auto a = shared, b = shared;
  a.push_back(5);
  b.push_back(6);
  auto ra = RunOne(*engine, Request(a, 3));
  auto rb = RunOne(*engine, Request(b, 3));
  EXPECT_EQ(rb[0].num_cached_tokens, 40);
  EXPECT_EQ(rb[0].tokens, RunAlone(on, Request(b, 3))[0].tokens);
  TestEngineOptions off = on;
  off.prefix_caching = false;
  EXPECT_EQ(rb[0].tokens, RunAlone(off, Request(b, 3))[0].tokens);
}

TEST(EngineEquivalence, PreemptionKeepsOutputs) {
  TestEngineOptions o;
  o.full_blocks = 40;  // 39 usable blocks of 4 tokens: far less than the workload wants
  o.sliding_blocks = 40;
  o.max_model_len = 120;
  int64_t preemptions = 0;
  ExpectMatchesSequential(o, 16, 4, &preemptions);
  EXPECT_GT(preemptions, 0);
}

TEST(EngineEquivalence, FullAttentionOnlyAndSmallWindow) {
  TestEngineOptions o;
  o.sliding_blocks = 0;
  ExpectMatchesSequential(o, 10, 5);
  TestEngineOptions w;
  w.window = 1;
  w.block_size = 2;
  w.max_num_batched_tokens = 7;
  ExpectMatchesSequential(w, 10, 6);
}

}  // namespace
}  // namespace gemmad::engine::testing
