// The blocks of one Gemma 4 forward step (text-model.md §3, §4). Internal to model/gemma4.
// Every function reads and updates buffers.x ([N, H], the residual stream) in place.
#pragma once

#include <span>

#include <vector>

#include "dist/communicator.h"
#include "kernels/context.h"
#include "model/forward_batch.h"
#include "model/gemma4/config.h"
#include "model/gemma4/step_buffers.h"
#include "model/gemma4/step_plan.h"
#include "model/gemma4/weights.h"
#include "model/kv_cache.h"

namespace gemmad::model::gemma4 {

// Per-step constants shared by the blocks.
struct KvScaleCalibration;  // model/gemma4/kv_scales.h

struct LayerContext {
  const kernels::ExecContext& exec;
  const Config& config;
  const Weights& weights;
  const std::vector<float>& rope_sliding;  // [d_s / 2]
  const std::vector<float>& rope_full;     // [d_f / 2]
  const ForwardBatch& batch;
  const StepPlan& plan;
  KvCache& cache;
  StepBuffers& buf;
  float eps;
  dist::Communicator* comm = nullptr;  // tensor parallelism; null: the whole model here
  KvScaleCalibration* kv_calibration = nullptr;  // --calculate-kv-scales, first forward only (kv_scales.h)
};

// Under tensor parallelism, x (a host f32 buffer of partial sums, one per rank) becomes the sum
// over the ranks; without it, nothing. A failed collective aborts: the other ranks cannot go on.
void AllReduce(const LayerContext& lc, const TensorView& x);

// x = E[t]·s_emb; and, with PLE, buffers.ple = per-layer inputs [N, L, P] (§3.1, §7).
// The pool's idle workers prefetch `w` (the next matrix a step reads) while the caller runs the
// single-threaded ops before it (kernels::PrefetchWhileIdle); a no-op for an empty view.
inline void PrefetchNext(const LayerContext& lc, const TensorView& w) {
  kernels::PrefetchWhileIdle(lc.exec, w.data, static_cast<size_t>(w.SizeBytes()));
}

// y = x·wᵀ through kernels::Linear / LinearMany, with the checkpoint's static int8 activation fake
// quantization where a weight has it (Weights::act_quant; model/gemma4/act_quant_linear.cc).
void ProjLinear(const LayerContext& lc, const TensorView& x, const TensorView& w, const TensorView& y);
void ProjLinearMany(const LayerContext& lc, const TensorView& x, std::span<const TensorView> ws,
                    std::span<const TensorView> ys);

void EmbedTokens(const LayerContext& lc);
// sqrt(n) as the embedding scale in `compute` (bf16-rounded for bf16 models, as the reference).
float EmbedScale(int64_t n, tensor::DType compute);

// §4 + §5: x += post_attention_norm(Attention(input_norm(x))) for layer l.
void AttentionBlock(const LayerContext& lc, int64_t l);
// §4 (+ §8): x += post_feedforward_norm(MLP(...) [+ MoE]) for layer l.
void FeedForwardBlock(const LayerContext& lc, int64_t l);
// §7 in-layer part: x += post_per_layer_input_norm(proj(gelu(gate(x)) ⊙ ple[:, l])).
void PerLayerInputBlock(const LayerContext& lc, int64_t l);

}  // namespace gemmad::model::gemma4
