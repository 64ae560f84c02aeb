// ModelRunner: the Runner over a real Gemma 4 Model. Each step flattens the SchedulerOutput into
// a model::ForwardBatch (tokens, positions, per-sequence ranges, logit rows, one block table per
// KV group), runs Model::Forward into a logits buffer, then samples with the SamplingRegistry.
// KV ids: kv pools reserve id 0 as the null block, so pool id b is cache block b - 1 and the
// null block is the model's -1 (a freed sliding-window block).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/context.h"
#include "kv/kv_cache_manager.h"
#include "model/gemma4/model.h"
#include "model/kv_cache.h"
#include "runner/mm_encoder.h"
#include "runner/mm_inputs.h"
#include "runner/mtp_drafter.h"
#include "runner/runner.h"
#include "runner/sampling_registry.h"

namespace gemmad::runner {

// The engine's KV config for `spec` with `num_blocks` pool blocks per group (null block
// included), in the spec's group order.
kv::KvCacheConfig KvConfigForSpec(const model::KvCacheSpec& spec, const std::vector<int64_t>& num_blocks,
                                  bool enable_prefix_caching);
// The kv planner's input groups (name, kind, window, bytes per block) for `spec`.
std::vector<kv::KvGroupSpec> KvGroupsForSpec(const model::KvCacheSpec& spec);

class ModelRunner : public Runner {
 public:
  // Allocates the KV cache for `kv` (which must come from KvConfigForSpec of the model's spec
  // with the same block size).
  // `encoder` (may be null: text only) turns multimodal items into their placeholder rows.
  static Result<std::unique_ptr<ModelRunner>> Create(std::unique_ptr<model::gemma4::Model> model,
                                                     const kv::KvCacheConfig& kv, kernels::ExecContext exec,
                                                     std::optional<tensor::DType> kv_dtype = std::nullopt,
                                                     std::unique_ptr<MultimodalEncoder> encoder = nullptr);

  int32_t vocab_size() const override { return static_cast<int32_t>(model_->config().vocab_size); }
  // Fails (and the engine with it) when an encoder fails on an admitted item.
  Result<StepResult> Execute(const sched::SchedulerOutput& out) override;
  bool SupportsModality(mm::Modality m) const override { return encoder_ && encoder_->Supports(m); }
  bool SetLogitsHook(LogitsHook hook) override {
    registry_.set_logits_hook(std::move(hook));
    return true;
  }
  bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) override {
    registry_.set_drafter(std::move(drafter), num_tokens);
    return true;
  }

  // MTP speculative decoding with a Gemma 4 assistant (before the first step): every sampling
  // sequence gets up to `num_tokens` drafts after each step (runner/mtp_drafter.h).
  void SetMtpAssistant(std::unique_ptr<model::gemma4::Assistant> assistant, int32_t num_tokens);

  const model::gemma4::Model& model() const { return *model_; }
  const model::KvCache& cache() const { return *cache_; }

 private:
  ModelRunner(std::unique_ptr<model::gemma4::Model> model, std::unique_ptr<model::KvCache> cache,
              kernels::ExecContext exec, std::unique_ptr<MultimodalEncoder> encoder);

  std::unique_ptr<model::gemma4::Model> model_;
  std::unique_ptr<model::KvCache> cache_;
  kernels::ExecContext exec_;
  SamplingRegistry registry_;
  std::unique_ptr<MultimodalEncoder> encoder_;
  MultimodalInputs mm_;
  std::vector<float> logits_;  // [rows, vocab], reused between steps
  std::unique_ptr<MtpDrafter> mtp_;
};

}  // namespace gemmad::runner
