// Helpers for engine tests: an Engine over a FakeRunner with small, test-friendly geometry, and
// collection of a request's outputs.
#pragma once

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "runner/fake_runner.h"
#include "runner/runner.h"

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
  std::shared_future<void> first_step_gate;  // see GatedRunner
  double iteration_timeout_s = 60.0;
  uint64_t seed = 0;
  std::shared_ptr<runner::MultimodalEncoder> encoder;  // multimodal items (none: text only)
  // Speculative decoding (RunAlone's reference runs without it).
  std::shared_ptr<const spec::TokenDrafter> drafter;
  int32_t num_speculative_tokens = 0;
};

// A runner whose first step waits for `gate` (when valid): a test submits its whole workload while
// the engine is held in step 0, so the next step admits all of it at once whatever the threads'
// timing (tests of batching and preemption). Wraps any runner: the FakeRunner here, the real
// ModelRunner in engine_model_test.cc.
class GatedRunner : public runner::Runner {
 public:
  GatedRunner(std::unique_ptr<runner::Runner> inner, std::shared_future<void> gate)
      : inner_(std::move(inner)), gate_(std::move(gate)) {}
  int32_t vocab_size() const override { return inner_->vocab_size(); }
  Result<runner::StepResult> Execute(const sched::SchedulerOutput& out) override {
    if (gate_.valid()) {
      gate_.wait();
      gate_ = {};
    }
    return inner_->Execute(out);
  }
  bool SupportsModality(mm::Modality modality) const override { return inner_->SupportsModality(modality); }
  bool SetLogitsHook(runner::LogitsHook hook) override { return inner_->SetLogitsHook(std::move(hook)); }
  bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) override {
    return inner_->SetTokenDrafter(std::move(drafter), num_tokens);
  }

 private:
  std::unique_ptr<runner::Runner> inner_;
  std::shared_future<void> gate_;
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
