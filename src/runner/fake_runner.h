// FakeRunner: a Runner without a model, for scheduler and engine tests. It keeps a fake paged
// KV cache (per group, per block slot: position, token, hash of the whole prefix) written at the
// scheduled positions through the step's block tables, and derives each position's logits from
// what it reads back: the prefix hash (full groups) and the window's tokens (sliding groups).
// So logits depend only on the token history, and a wrong block table (stale or shared block,
// dropped window block) changes the output or fails a check naming the block.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kv/kv_cache_manager.h"
#include "runner/mm_encoder.h"
#include "runner/mm_inputs.h"
#include "runner/runner.h"
#include "runner/sampling_registry.h"

namespace gemmad::runner {

struct FakeRunnerConfig {
  int32_t vocab_size = 128;
  kv::KvCacheConfig kv;          // the scheduler's geometry (block size, groups, num_blocks)
  uint64_t model_seed = 1;       // picks the fake "weights"
  std::optional<int32_t> eos_token_id;
  float eos_bias = 0.0f;         // added to the EOS logit (raise it for shorter outputs)
  float logit_scale = 4.0f;      // logits are uniform in [-scale, scale]
  std::chrono::milliseconds step_delay{0};
  int64_t fail_at_step = -1;     // Execute fails at this step index (tests of engine death)
  // Multimodal items (tests of the model-input seam): the encoder's rows, of mm_hidden floats,
  // stand in for the placeholder tokens in the fake KV (so outputs depend on item content).
  std::shared_ptr<MultimodalEncoder> encoder;
  int64_t mm_hidden = 4;
};

class FakeRunner : public Runner {
 public:
  explicit FakeRunner(FakeRunnerConfig config);

  int32_t vocab_size() const override { return config_.vocab_size; }
  Result<StepResult> Execute(const sched::SchedulerOutput& out) override;
  bool SupportsModality(mm::Modality m) const override { return config_.encoder && config_.encoder->Supports(m); }
  size_t num_cached_encodings() const { return mm_.num_cached_encodings(); }
  bool SetLogitsHook(LogitsHook hook) override {
    registry_.set_logits_hook(std::move(hook));
    return true;
  }
  bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) override {
    registry_.set_drafter(std::move(drafter), num_tokens);
    return true;
  }

  // The logits a position with this prefix hash and sliding-window tokens gets (exposed so
  // tests can compute a sequence's expected greedy output without any KV cache).
  static void ModelLogits(const FakeRunnerConfig& cfg, uint64_t prefix_hash,
                          const std::vector<std::vector<int32_t>>& window_tokens, std::span<float> out);
  static uint64_t ExtendPrefixHash(uint64_t prev, int32_t token);
  static uint64_t EmptyPrefixHash(const FakeRunnerConfig& cfg);

  int64_t num_steps() const { return num_steps_.load(); }
  int64_t max_batch_seqs() const { return max_batch_seqs_.load(); }
  size_t num_registered() const { return registry_.size(); }

 private:
  struct Slot {
    int64_t position = -1;
    int32_t token = -1;
    uint64_t prefix_hash = 0;
  };
  Slot& SlotAt(size_t group, const sched::ScheduledSeq& s, int64_t position);
  const Slot& ReadSlot(size_t group, const sched::ScheduledSeq& s, int64_t position);
  // `overrides`: rows of this chunk (token_begin 0) that carry encoder output.
  void WritePositions(const sched::ScheduledSeq& s, const std::vector<model::EmbeddingOverride>& overrides);
  void Logits(const sched::ScheduledSeq& s, int64_t position, std::span<float> out);

  FakeRunnerConfig config_;
  SamplingRegistry registry_;
  MultimodalInputs mm_;
  size_t chain_group_ = 0;  // the full group whose slots carry the prefix hash
  std::vector<std::vector<Slot>> slots_;  // [group][block * block_size + offset]
  std::atomic<int64_t> num_steps_{0};
  std::atomic<int64_t> max_batch_seqs_{0};
};

}  // namespace gemmad::runner
