#include "engine_test_util.h"

#include <gtest/gtest.h>

#include <utility>

namespace gemmad::engine::testing {

kv::KvCacheConfig KvConfig(const TestEngineOptions& o) {
  kv::KvCacheConfig c;
  c.block_size = o.block_size;
  c.enable_prefix_caching = o.prefix_caching;
  if (o.sliding_blocks > 0) {
    c.groups.push_back({"sliding", kv::KvGroupKind::kSliding, o.window, o.sliding_blocks, 1});
  }
  c.groups.push_back({"full", kv::KvGroupKind::kFull, 0, o.full_blocks, 1});
  return c;
}

runner::FakeRunnerConfig RunnerConfig(const TestEngineOptions& o) {
  runner::FakeRunnerConfig r;
  r.vocab_size = o.vocab_size;
  r.kv = KvConfig(o);
  r.model_seed = o.model_seed;
  r.eos_token_id = o.eos_token_id;
  r.eos_bias = o.eos_bias;
  r.step_delay = o.step_delay;
  r.fail_at_step = o.fail_at_step;
  r.encoder = o.encoder;
  return r;
}

std::unique_ptr<Engine> MakeEngine(const TestEngineOptions& o, runner::FakeRunner** runner) {
  EngineConfig cfg;
  cfg.scheduler = {o.max_num_seqs, o.max_num_batched_tokens, o.max_model_len};
  cfg.kv = KvConfig(o);
  cfg.eos_token_id = o.eos_token_id;
  cfg.iteration_timeout_s = o.iteration_timeout_s;
  cfg.seed = o.seed;
  auto fake = std::make_unique<runner::FakeRunner>(RunnerConfig(o));
  if (o.drafter) {
    fake->SetTokenDrafter(o.drafter, o.num_speculative_tokens);
    cfg.num_speculative_tokens = o.num_speculative_tokens;
  }
  if (runner) *runner = fake.get();
  std::unique_ptr<runner::Runner> run = std::move(fake);
  if (o.first_step_gate.valid()) run = std::make_unique<GatedRunner>(std::move(run), o.first_step_gate);
  auto engine = std::make_unique<Engine>(cfg, std::move(run));
  Status s = engine->Start();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return engine;
}

std::vector<Choice> Collect(RequestStream& stream, std::chrono::milliseconds timeout) {
  std::vector<Choice> choices(static_cast<size_t>(stream.n()));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  RequestOutput out;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ADD_FAILURE() << "request " << stream.id() << " did not finish in time";
      break;
    }
    auto st = stream.Read(&out, left);
    if (st == RequestStream::ReadStatus::kEnd) break;
    if (st == RequestStream::ReadStatus::kTimeout) continue;
    Choice& c = choices[static_cast<size_t>(out.index)];
    EXPECT_EQ(c.finish, FinishReason::kNone) << "delta after the final one";
    c.tokens.insert(c.tokens.end(), out.token_ids.begin(), out.token_ids.end());
    c.logprobs.insert(c.logprobs.end(), out.logprobs.begin(), out.logprobs.end());
    if (out.prompt_logprobs) c.prompt_logprobs = out.prompt_logprobs;
    // (Deltas read before Collect are not counted in c.tokens; FailAll does not know counts.)
    if (out.finish_reason != FinishReason::kError) {
      EXPECT_GE(out.num_output_tokens, static_cast<int32_t>(c.tokens.size()));
    }
    c.finish = out.finish_reason;
    c.stop_token_id = out.stop_token_id;
    c.error = out.error;
    c.num_cached_tokens = out.num_cached_tokens;
    ++c.num_deltas;
  }
  return choices;
}

EngineRequest Request(std::vector<int32_t> prompt, int32_t max_tokens) {
  EngineRequest r;
  r.prompt_token_ids = std::move(prompt);
  r.sampling.temperature = 0.0f;
  r.sampling.max_tokens = max_tokens;
  return r;
}

std::vector<int32_t> Prompt(int length, int salt, int vocab) {
  std::vector<int32_t> p;
  uint64_t x = static_cast<uint64_t>(salt) * 2654435761u + 12345;
  for (int i = 0; i < length; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    p.push_back(static_cast<int32_t>(2 + (x >> 33) % static_cast<uint64_t>(vocab - 2)));
  }
  return p;
}

std::vector<Choice> RunOne(Engine& engine, EngineRequest request) {
  auto stream = engine.Submit(std::move(request));
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return {};
  return Collect(**stream);
}

std::vector<Choice> RunAlone(const TestEngineOptions& o, EngineRequest request) {
  TestEngineOptions big = o;
  big.full_blocks = 4096;
  big.sliding_blocks = o.sliding_blocks > 0 ? 4096 : 0;
  big.max_num_batched_tokens = 4096;
  big.step_delay = std::chrono::milliseconds(0);
  big.fail_at_step = -1;
  big.drafter = nullptr;  // the reference is plain decoding
  auto engine = MakeEngine(big);
  return RunOne(*engine, std::move(request));
}

}  // namespace gemmad::engine::testing
