// Assistant: a Gemma 4 MTP drafter (text-model.md §12) loaded from its checkpoint, and its one
// draft step. The step takes the TARGET's scaled input embedding of the last token and a backbone
// vector (the target's final-normed hidden state, then the previous step's output), runs the
// assistant's Q-only layers over the target's cached K/V of the donor layers (the last KV-owning
// layer of each type), and returns the draft logits, the drafted token and the next backbone.
// The target's K/V are read through its paged cache, as the target's own attention reads them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "kernels/context.h"
#include "kernels/ops.h"
#include "model/gemma4/assistant_config.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// The donor K/V of one layer type for one sequence, and which keys the query reads: keys
// [max(0, last_key - window + 1), last_key] (window 0: all up to last_key). The draft step at
// position p of the accepted sequence reads last_key = p - 1, window W + 1 on sliding layers
// (transformers' assistant mask: the W + 1 most recent rows).
struct DonorKv {
  tensor::TensorView k_cache, v_cache;  // [num_blocks, block_size, nkv, d] f32|bf16 (|fp8 as the cache is)
  kernels::KvScales scales;              // the target's, for its FP8 cache (gemma4/kv_scales.h)
  const int32_t* block_table = nullptr;  // logical block -> physical block (-1: freed)
  int64_t block_table_size = 0;
  int64_t last_key = 0;
  int64_t window = 0;
};

struct DraftStepResult {
  std::vector<float> logits;    // [V]: the draft distribution's logits as transformers returns them
  std::vector<float> hidden;    // [Hd]: the final-normed hidden state
  std::vector<float> backbone;  // [Hb]: the next step's backbone vector
  int32_t token = 0;            // argmax(logits) (the lowest id among equal maxima)
};

class Assistant {
 public:
  // Checks the config against the target's (CheckAssistantFitsTarget) and binds the weights.
  static Result<std::unique_ptr<Assistant>> Load(std::shared_ptr<const WeightSource> source, const Config& target);

  const AssistantConfig& config() const { return config_; }

  // One draft step at `position`. token_embedding: [Hb] = E_target[token] · √Hb; backbone: [Hb].
  // sliding / full: the donors of the two layer types (one may be unused by a given assistant).
  Status DraftStep(const kernels::ExecContext& exec, std::span<const float> token_embedding,
                   std::span<const float> backbone, int64_t position, const DonorKv& sliding, const DonorKv& full,
                   DraftStepResult* out) const;

 private:
  struct Layer {
    tensor::TensorView input_norm, post_attention_norm, pre_feedforward_norm, post_feedforward_norm;
    tensor::TensorView q_proj, q_norm, o_proj, gate_proj, up_proj, down_proj;
    float layer_scalar = 1.0f;
  };
  Assistant() = default;
  void Logits(const kernels::ExecContext& exec, const tensor::TensorView& h, DraftStepResult* out) const;

  std::shared_ptr<const WeightSource> source_;  // owns the mapped weights
  AssistantConfig config_;
  std::vector<Layer> layers_;
  tensor::TensorView embed_, final_norm_, pre_projection_, post_projection_, centroids_;
  std::vector<int32_t> token_ordering_;  // [V] (ordered assistants)
  std::vector<float> rope_sliding_, rope_full_;
};

}  // namespace gemmad::model::gemma4
