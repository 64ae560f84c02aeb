// Model: a loaded Gemma 4 text decoder (E2B, E4B, 31B, 26B-A4B and the tiny test variants) and
// its forward pass over a ForwardBatch with a paged KvCache. Equal to the transformers reference
// in fp32 (exact scales, fp32 everywhere); with bf16 checkpoints the weights stay bf16 (memory-
// mapped) and are widened in registers, activations stay fp32 (more accurate than the reference's
// bf16 storage, which a per-op rounding did not reproduce any closer), the embedding scales are
// rounded to bf16 as the reference does, and the KV cache defaults to bf16.
//
// Thread-compatibility: Forward mutates internal step buffers; call it from one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "dist/communicator.h"
#include "dist/counting_communicator.h"
#include "kernels/context.h"
#include "model/forward_batch.h"
#include "model/gemma4/checkpoint.h"
#include "model/gemma4/config.h"
#include "model/gemma4/kv_scales.h"
#include "model/gemma4/layer_blocks.h"
#include "model/gemma4/step_buffers.h"
#include "model/gemma4/tp_shard.h"
#include "model/gemma4/weight_alignment.h"
#include "model/gemma4/weight_quantization.h"
#include "model/gemma4/weights.h"
#include "model/kv_cache.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// Hidden states as transformers' output_hidden_states reports them: L + 1 entries of
// [num_tokens, H]; entry 0 = scaled embedding, entry k (1 ≤ k < L) = output of layer k - 1,
// entry L = the final-normed output of the last layer.
using HiddenStates = std::vector<std::vector<float>>;

// How the weights are prepared after binding.
struct ModelOptions {
  WeightQuantization quantization = WeightQuantization::kNone;  // --quantization
  int num_threads = 1;  // threads for load-time work (quantization)
  // --dtype: the compute dtype (kBF16 or kF32): the KV cache element type and the bf16 rounding of
  // the embedding scales. Weights stay as stored; activations are f32 either way. Unset: bf16
  // when the embedding is stored in bf16, else f32.
  std::optional<tensor::DType> compute_dtype;
  // Tensor parallelism (docs/tensor-parallel.md): this process is rank communicator->rank() of
  // communicator->size() and holds that rank's shard of every layer (model/gemma4/tp_shard.h).
  // Null: the whole model in this process.
  std::shared_ptr<dist::Communicator> communicator;
};

class Model {
 public:
  // Opens and validates the checkpoint (config.json, safetensors, single or sharded) and binds
  // the weights. Errors are one line naming the file and the problem.
  static Result<std::unique_ptr<Model>> Load(const std::string& model_dir, const CheckpointOptions& options = {},
                                             const ModelOptions& model_options = {});
  // Loads from any weight source (model/weight_source.h): validates it, then binds the weights.
  static Result<std::unique_ptr<Model>> Load(std::shared_ptr<const WeightSource> source,
                                             const ModelOptions& model_options = {});
  // Binds an already opened checkpoint.
  static Result<std::unique_ptr<Model>> FromCheckpoint(Checkpoint checkpoint, const ModelOptions& model_options = {});

  // The checkpoint's config (the whole model, whatever this rank holds).
  const Config& config() const { return checkpoint_.config(); }
  // Tensor parallelism: this rank and the group's size ({0, 1} without it).
  TpRank tp() const { return tp_; }
  const Checkpoint& checkpoint() const { return checkpoint_; }
  const Weights& weights() const { return weights_; }
  // What load-time quantization did (all zero without --quantization).
  const QuantizationReport& quantization_report() const { return quantization_report_; }
  // Which streamed matrices were copied to 64-byte-aligned memory at load (weight_alignment.h).
  const AlignmentReport& alignment_report() const { return alignment_report_; }
  // kBF16 for bf16 checkpoints, else kF32.
  tensor::DType compute_dtype() const { return weights_.compute_dtype; }

  // The KV cache dtype --kv-cache-dtype auto gives: FP8 E4M3 when the checkpoint brings static FP8
  // KV scales (a compressed-tensors kv_cache_scheme, as vLLM chooses), else compute_dtype().
  tensor::DType default_kv_dtype() const { return has_kv_scales_ ? tensor::DType::kF8E4M3 : compute_dtype(); }
  // --calculate-kv-scales: the next forward on an FP8 cache measures every KV-owning layer's scales
  // from its keys and values (gemma4/kv_scales.h KvScaleCalibration) and they replace the
  // checkpoint's (or the default 1.0) from then on, for the life of the model. Not under tensor
  // parallelism (InvalidArgument).
  Status CalculateKvScalesOnFirstForward();
  // The KV geometry for blocks of `block_size` tokens; the cache dtype defaults to default_kv_dtype().
  KvCacheSpec MakeKvCacheSpec(int64_t block_size, std::optional<tensor::DType> kv_dtype = std::nullopt) const;

  // Runs one step. Under tensor parallelism rank 0 calls it (it first broadcasts the step to the
  // other ranks, whose ServeTensorParallelWorker runs the same step) and receives the logits.
  // logits: [batch.num_logit_rows(), vocab_size] f32, soft-capped. The cache must
  // come from MakeKvCacheSpec of this model. hidden_states (optional) receives every layer's
  // output for every row of the batch. Invalid batches (token ids, ranges, block tables) return
  // InvalidArgument before any work is done and leave the cache untouched. Every op runs on
  // exec's backend (kernels/backend.h): the cache's and logits' memory must be on its device, and
  // the step buffers come from its scratch allocator.
  Status Forward(const kernels::ExecContext& exec, const ForwardBatch& batch, KvCache& cache,
                 const tensor::TensorView& logits, HiddenStates* hidden_states = nullptr);

  // Tensor parallelism, ranks other than 0: runs the steps rank 0's Forward broadcasts, on a KV
  // cache shard made at the first step, until rank 0 calls StopTensorParallelWorkers (OK) or a
  // step fails (its error; a collective that fails aborts, as the other ranks cannot go on).
  Status ServeTensorParallelWorker(const kernels::ExecContext& exec);
  // Rank 0: ends the workers' loops (once; later calls do nothing). Also done by the destructor.
  void StopTensorParallelWorkers();
  ~Model();

  // Speculative drafting (MTP assistants): with keep_logit_hidden set, each Forward also keeps
  // the final-normed hidden state of every logit row (the LM head's input, [rows, H] f32, in
  // logit-row order), until the next Forward.
  void set_keep_logit_hidden(bool keep) { keep_logit_hidden_ = keep; }
  const std::vector<float>& logit_hidden() const { return logit_hidden_; }
  // out[H] = E[token] · sqrt(H) in the compute dtype's rounding: a step's input embedding (§3.1).
  void EmbedToken(const kernels::ExecContext& exec, int32_t token, std::span<float> out) const;

 private:
  Model() = default;
  Status CheckCache(const KvCache& cache) const;
  // Rank 0 under tensor parallelism: sends the step to the workers.
  void BroadcastStep(const ForwardBatch& batch, const KvCache& cache, bool record_hidden);
  // The tied LM head over head [rows, H] into logits [rows, V]: locally, or from every rank's
  // vocabulary slice gathered on rank 0.
  void LmHead(const kernels::ExecContext& exec, const tensor::TensorView& head, const tensor::TensorView& logits);
  // Runs the decoder layers over buffers_.x; returns the batch of the rows still live at the end
  // (`full`'s, or *kept: only the logit rows, once KV-shared layers are reached).
  // --calculate-kv-scales: the measured scales into weights_ (logged), the calibration dropped.
  void AdoptKvCalibration();
  const ForwardBatch& RunLayers(const LayerContext& full, ForwardBatch* kept, StepPlan* kept_plan,
                                HiddenStates* hidden_states);

  Checkpoint checkpoint_;
  Config shard_config_;  // what this rank's forward runs: config() divided by tp_ (tp_shard.h)
  TpRank tp_;
  std::shared_ptr<dist::CountingCommunicator> comm_;  // null without tensor parallelism
  int64_t tp_steps_ = 0;
  double tp_forward_seconds_ = 0.0;  // rank 0: wall time of the steps (for the summary line)
  bool has_kv_scales_ = false;  // the checkpoint's kv_cache_scheme scales are bound (gemma4/kv_scales.h)
  std::unique_ptr<KvScaleCalibration> kv_calibration_;  // --calculate-kv-scales, until the first FP8 forward
  bool workers_stopped_ = true;  // until a load succeeds: a model that failed to load stops no one
  std::vector<float> head_local_, head_gathered_;  // LM head slices under tensor parallelism
  Weights weights_;
  QuantizationReport quantization_report_;
  AlignmentReport alignment_report_;
  std::vector<float> rope_sliding_, rope_full_;  // inverse frequencies per layer type
  StepBuffers buffers_;
  bool keep_logit_hidden_ = false;
  std::vector<float> logit_hidden_;
};

}  // namespace gemmad::model::gemma4
