// Engine basics on the FakeRunner: outputs, finish reasons, logprobs, n, validation.
#include <gtest/gtest.h>

#include <cmath>

#include "engine_test_util.h"

namespace gemmad::engine::testing {
namespace {

TEST(EngineBasic, GreedyRequestRunsToMaxTokens) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;  // never EOS
  auto engine = MakeEngine(o);
  auto out = RunOne(*engine, Request(Prompt(10, 1), 7));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tokens.size(), 7u);
  EXPECT_EQ(out[0].finish, FinishReason::kLength);
  EXPECT_FALSE(out[0].stop_token_id.has_value());
  for (int32_t t : out[0].tokens) EXPECT_NE(t, o.eos_token_id);
  EXPECT_EQ(FinishReasonName(out[0].finish), "length");
}

TEST(EngineBasic, EosStopsWithoutStopTokenAndIgnoreEosRunsOn) {
  TestEngineOptions o;
  o.eos_bias = 100.0f;  // EOS always wins
  auto engine = MakeEngine(o);
  auto out = RunOne(*engine, Request(Prompt(5, 2), 10));
  ASSERT_EQ(out[0].tokens, std::vector<int32_t>{1});
  EXPECT_EQ(out[0].finish, FinishReason::kStop);
  EXPECT_FALSE(out[0].stop_token_id.has_value());

  auto r = Request(Prompt(5, 2), 4);
  r.sampling.ignore_eos = true;
  out = RunOne(*engine, r);
  EXPECT_EQ(out[0].tokens, (std::vector<int32_t>{1, 1, 1, 1}));
  EXPECT_EQ(out[0].finish, FinishReason::kLength);

  // min_tokens masks EOS until reached.
  r = Request(Prompt(5, 2), 10);
  r.sampling.min_tokens = 3;
  out = RunOne(*engine, r);
  ASSERT_EQ(out[0].tokens.size(), 4u);
  EXPECT_NE(out[0].tokens[0], 1);
  EXPECT_NE(out[0].tokens[2], 1);
  EXPECT_EQ(out[0].tokens[3], 1);
}

TEST(EngineBasic, StopTokenIdIsReported) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto ref = RunOne(*engine, Request(Prompt(6, 3), 8));
  ASSERT_EQ(ref[0].tokens.size(), 8u);
  auto r = Request(Prompt(6, 3), 8);
  r.sampling.stop_token_ids = {ref[0].tokens[3]};
  auto out = RunOne(*engine, r);
  // Stops at the first occurrence of that token (which may be earlier than index 3).
  ASSERT_FALSE(out[0].tokens.empty());
  EXPECT_EQ(out[0].tokens.back(), ref[0].tokens[3]);
  EXPECT_EQ(out[0].finish, FinishReason::kStop);
  ASSERT_TRUE(out[0].stop_token_id.has_value());
  EXPECT_EQ(*out[0].stop_token_id, ref[0].tokens[3]);
}

TEST(EngineBasic, LogprobsAreRawAndConsistent) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto r = Request(Prompt(6, 4), 5);
  r.sampling.logprobs = 3;
  r.sampling.temperature = 0.7f;
  r.sampling.seed = 11;
  r.sampling.presence_penalty = 1.5f;  // processors must not change the reported logprobs
  auto out = RunOne(*engine, r);
  ASSERT_EQ(out[0].logprobs.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const auto& lp = out[0].logprobs[i];
    EXPECT_EQ(lp.token_id, out[0].tokens[i]);
    ASSERT_EQ(lp.top.size(), 3u);
    EXPECT_GE(lp.top[0].logprob, lp.top[1].logprob);
    EXPECT_GE(lp.top[1].logprob, lp.top[2].logprob);
    EXPECT_LE(lp.logprob, 0.0f);
    EXPECT_GE(lp.rank, 1);
    if (lp.rank == 1) {
      EXPECT_EQ(lp.top[0].token_id, lp.token_id);
    }
  }
  // Raw: the first token's distribution is the model's (uniform logits in [-4, 4] over 96
  // tokens); its logprobs must sum to ~1 over the vocabulary -> top-1 logprob > log(1/96).
  EXPECT_GT(out[0].logprobs[0].top[0].logprob, std::log(1.0f / 96.0f));
}

TEST(EngineBasic, PromptLogprobsCoverEveryPromptTokenOnce) {
  TestEngineOptions o;
  o.max_num_batched_tokens = 8;  // several chunks
  auto engine = MakeEngine(o);
  auto prompt = Prompt(21, 5);
  auto r = Request(prompt, 2);
  r.sampling.prompt_logprobs = 2;
  auto out = RunOne(*engine, r);
  ASSERT_TRUE(out[0].prompt_logprobs.has_value());
  const auto& pl = *out[0].prompt_logprobs;
  ASSERT_EQ(pl.size(), prompt.size());
  EXPECT_FALSE(pl[0].has_value());
  for (size_t i = 1; i < pl.size(); ++i) {
    ASSERT_TRUE(pl[i].has_value()) << i;
    EXPECT_EQ(pl[i]->token_id, prompt[i]);
    EXPECT_EQ(pl[i]->top.size(), 2u);
  }
  // Same values when computed in one chunk.
  TestEngineOptions big = o;
  big.max_num_batched_tokens = 64;
  auto engine2 = MakeEngine(big);
  auto out2 = RunOne(*engine2, r);
  for (size_t i = 1; i < pl.size(); ++i) {
    EXPECT_FLOAT_EQ(pl[i]->logprob, (*out2[0].prompt_logprobs)[i]->logprob);
  }
}

TEST(EngineBasic, NChildrenUseSeedPlusIndex) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto r = Request(Prompt(9, 6), 6);
  r.sampling.temperature = 1.0f;
  r.sampling.n = 3;
  r.sampling.seed = 100;
  auto out = RunOne(*engine, r);
  ASSERT_EQ(out.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    auto single = Request(Prompt(9, 6), 6);
    single.sampling.temperature = 1.0f;
    single.sampling.seed = 100 + i;
    auto ref = RunOne(*engine, single);
    EXPECT_EQ(out[static_cast<size_t>(i)].tokens, ref[0].tokens) << i;
    EXPECT_EQ(out[static_cast<size_t>(i)].finish, FinishReason::kLength);
  }
  EXPECT_NE(out[0].tokens, out[1].tokens);
}

TEST(EngineBasic, SeededSamplingIsReproducible) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto r = Request(Prompt(9, 7), 12);
  r.sampling.temperature = 1.3f;
  r.sampling.top_p = 0.9f;
  r.sampling.seed = 42;
  auto a = RunOne(*engine, r);
  auto b = RunOne(*engine, r);
  EXPECT_EQ(a[0].tokens, b[0].tokens);
  r.sampling.seed = 43;
  auto c = RunOne(*engine, r);
  EXPECT_NE(a[0].tokens, c[0].tokens);
}

TEST(EngineBasic, SubmitValidates) {
  TestEngineOptions o;
  o.max_model_len = 100;
  auto engine = MakeEngine(o);
  auto bad = [&](EngineRequest r, const std::string& needle) {
    auto s = engine->Submit(std::move(r));
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status().message();
  };
  bad(Request({}, 5), "at least one token");
  bad(Request({3, 500}, 5), "out of vocabulary");
  bad(Request(Prompt(90, 1), 20), "maximum context length is 100 tokens");
  auto r = Request(Prompt(5, 1), 5);
  r.sampling.temperature = -1.0f;
  bad(r, "temperature must be non-negative");
  r = Request(Prompt(5, 1), 5);
  r.sampling.logprobs = 21;
  bad(r, "Requested sample logprobs of 21, which is greater than max allowed: 20");
  r = Request(Prompt(5, 1), 5);
  r.sampling.n = 2;
  bad(r, "n must be 1 when using greedy sampling");
  // Without max_tokens the rest of the context is the limit.
  auto ok = Request(Prompt(95, 1), 5);
  ok.sampling.max_tokens.reset();
  ok.sampling.ignore_eos = true;
  auto out = RunOne(*engine, ok);
  EXPECT_EQ(out[0].tokens.size(), 5u);
  EXPECT_EQ(out[0].finish, FinishReason::kLength);
}

TEST(EngineBasic, RequestThatCanNeverFitIsRejectedNotQueued) {
  TestEngineOptions o;
  o.full_blocks = 11;  // 10 usable blocks of 4 = 40 tokens per sequence at most
  auto engine = MakeEngine(o);
  EXPECT_EQ(engine->limits().max_kv_sequence_tokens, 40);
  auto s = engine->Submit(Request(Prompt(30, 1), 20));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("could never be scheduled"), std::string::npos);
  // The queue is not stalled: a request that fits runs.
  auto out = RunOne(*engine, Request(Prompt(20, 1), 20));
  EXPECT_EQ(out[0].finish == FinishReason::kLength || out[0].finish == FinishReason::kStop, true);
}

TEST(EngineBasic, MetricsCountARequestBeforeItsFinalOutput) {
  // A client that reads /metrics right after its response must see the response's tokens
  // (issue 27 d). Many short requests make a late publish show up as a miscount.
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  for (uint64_t i = 1; i <= 200; ++i) {
    RunOne(*engine, Request(Prompt(6, static_cast<int32_t>(i)), 2));
    const EngineMetrics m = engine->Metrics();
    ASSERT_EQ(m.request_success.length, i);
    ASSERT_EQ(m.generation_tokens, 2 * i);
    ASSERT_EQ(m.prompt_tokens, 6 * i);
    ASSERT_EQ(m.e2e_request_latency_seconds.count, i);
    ASSERT_EQ(m.num_requests_running, 0);
  }
}

TEST(EngineBasic, MetricsMoveWithTraffic) {
  TestEngineOptions o;
  o.eos_bias = -100.0f;
  auto engine = MakeEngine(o);
  auto r = Request(Prompt(12, 8), 5);
  RunOne(*engine, r);
  RunOne(*engine, r);  // second time: prefix cache hit
  // No waiting: the engine publishes a request's counters before its final output goes out.
  EngineMetrics m = engine->Metrics();
  EXPECT_EQ(m.request_success.length, 2u);
  EXPECT_EQ(m.prompt_tokens, 24u);
  EXPECT_EQ(m.generation_tokens, 10u);
  EXPECT_EQ(m.time_to_first_token_seconds.count, 2u);
  EXPECT_EQ(m.inter_token_latency_seconds.count, 8u);
  EXPECT_EQ(m.e2e_request_latency_seconds.count, 2u);
  EXPECT_EQ(m.request_queue_time_seconds.count, 2u);
  EXPECT_EQ(m.request_time_per_output_token_seconds.count, 2u);
  EXPECT_EQ(m.request_prompt_tokens.sum, 24.0);
  EXPECT_EQ(m.prefix_cache_queries, 24u);
  EXPECT_EQ(m.prefix_cache_hits, 8u);  // 11 -> two blocks of 4
  EXPECT_EQ(m.prompt_tokens_cached, 8u);
  EXPECT_EQ(m.num_requests_running, 0);
  EXPECT_EQ(m.kv_cache_usage_perc, 0.0);
  EXPECT_TRUE(m.healthy);
  EXPECT_GT(m.iteration_tokens_total.count, 0u);
}

}  // namespace
}  // namespace gemmad::engine::testing
