// Helpers for engine tests: an Engine over a FakeRunner with small, test-friendly geometry, and
// collection of a request's outputs.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "runner/fake_runner.h"

namespace gemmad::engine::testing {

struct TestEngineOptions {
  int32_t vocab_size = 96;
  int32_t block_size = 4;
  int64_t full_blocks = 256;     // including the null block
  int64_t sliding_blocks = 256;  // 0 = no sliding group
  int32_t window = 8;
  bool prefix_caching = true;
  int32_t max_num_seqs = 64;
  int32_t max_num_batched_tokens = 64;
  int64_t max_model_len = 512;
  int32_t eos_token_id = 1;
  float eos_bias = 0.0f;
  uint64_t model_seed = 7;
  std::chrono::milliseconds step_delay{0};
  int64_t fail_at_step = -1;
  std::shared_future<void> first_step_gate;  // see FakeRunnerConfig
  double iteration_timeout_s = 60.0;
  uint64_t seed = 0;
  std::shared_ptr<runner::MultimodalEncoder> encoder;  // multimodal items (none: text only)
  // Speculative decoding (RunAlone's reference runs without it).
  std::shared_ptr<const spec::TokenDrafter> drafter;
  int32_t num_speculative_tokens = 0;
};

kv::KvCacheConfig KvConfig(const TestEngineOptions& o);
runner::FakeRunnerConfig RunnerConfig(const TestEngineOptions& o);
// A started engine; the FakeRunner pointer stays valid while the engine lives.
std::unique_ptr<Engine> MakeEngine(const TestEngineOptions& o, runner::FakeRunner** runner = nullptr);

struct Choice {
  std::vector<int32_t> tokens;
  std::vector<sample::TokenLogprobs> logprobs;
  FinishReason finish = FinishReason::kNone;
  std::optional<int32_t> stop_token_id;
  Status error;
  int num_deltas = 0;
  int32_t num_cached_tokens = 0;
  std::optional<std::vector<std::optional<sample::TokenLogprobs>>> prompt_logprobs;
};

// Reads until kEnd (fails the test after `timeout`).
std::vector<Choice> Collect(RequestStream& stream, std::chrono::milliseconds timeout = std::chrono::seconds(30));

EngineRequest Request(std::vector<int32_t> prompt, int32_t max_tokens);
std::vector<int32_t> Prompt(int length, int salt, int vocab = 96);

// Submits and collects one request on `engine`.
std::vector<Choice> RunOne(Engine& engine, EngineRequest request);
// The same request alone on a fresh engine with ample KV and budget: the sequential reference.
std::vector<Choice> RunAlone(const TestEngineOptions& o, EngineRequest request);

}  // namespace gemmad::engine::testing
