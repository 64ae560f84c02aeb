// Weights: zero-copy views of every tensor the Gemma 4 text forward pass reads (text-model.md
// §9), bound by name from a checkpoint and checked against the config. bf16 and f32 tensors are
// used as stored (memory-mapped); f16 tensors are widened once into owned f32 copies.
// KV-shared layers bind no k/v projections or k_norm (the checkpoint's copies are never used).
// Norm views always hold the multiplier of x̂: with Config::norm_weight_plus_one (Gemma 3) they
// are owned fp32 copies of 1 + w; Gemma 3 binds no layer_scalar (LayerWeights::layer_scalar = 1).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "io/huge_page_buffer.h"
#include "model/gemma4/config.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// Whether a block-quantized tensor of this rank is bound as stored and read by the kernels: a GGUF
// matrix (rank 2) in a block type the Linear and gather kernels read, or an expert stack (rank 3)
// of such matrices: a GGUF one in a ggml block type, a Q4_0 one that model/gguf_source.h
// repacked as --quantization int4 lays a stack out, or the kF8R stack model/ct_source.h makes of a
// FP8 checkpoint's per-expert matrices (MoeExperts runs Linear on each expert's rows).
inline bool BoundAsStored(tensor::DType t, int64_t rank) {
  return (tensor::IsBlockQuantized(t) && rank == 2) ||
         ((t == tensor::DType::kQ4_0 || t == tensor::DType::kF8R || tensor::GgmlTypeId(t).has_value()) && rank == 3);
}

using tensor::TensorView;

struct LayerWeights {
  TensorView input_norm, post_attention_norm, pre_feedforward_norm, post_feedforward_norm;  // [H]
  float layer_scalar = 1.0f;
  TensorView q_proj;  // [nH·d, H]
  TensorView q_norm;  // [d]
  TensorView k_proj;  // [nkv·d, H]; empty on KV-shared layers
  TensorView v_proj;  // [nkv·d, H]; empty on KV-shared layers and k_eq_v full layers
  TensorView k_norm;  // [d]; empty on KV-shared layers
  TensorView o_proj;  // [H, nH·d]
  TensorView gate_proj, up_proj;  // [I_l, H]
  TensorView down_proj;           // [H, I_l]
  // PLE (P > 0).
  TensorView ple_gate;        // [P, H]
  TensorView ple_projection;  // [H, P]
  TensorView ple_post_norm;   // [H]
  // MoE (enable_moe_block).
  TensorView router_proj;        // [E, H]
  TensorView router_scale;       // [H]
  TensorView per_expert_scale;   // [E]
  TensorView experts_gate_up;    // [E, 2·Ie, H]
  TensorView experts_down;       // [E, H, Ie]
  TensorView pre_feedforward_norm_2, post_feedforward_norm_1, post_feedforward_norm_2;  // [H]
  // A checkpoint's static FP8 KV cache scales (gemma4/kv_scales.h): [1] or [nkv]; empty without.
  std::vector<float> k_scale, v_scale;
};

struct Weights {
  TensorView embed;       // [V, H], gathered by token id
  TensorView lm_head;     // [V, H]: the tied LM head, = embed unless quantized (then a quantized copy)
  TensorView final_norm;  // [H]
  TensorView ple_table;             // [V_ple, L·P]
  TensorView ple_model_projection;  // [L·P, H]
  TensorView ple_projection_norm;   // [P]
  std::vector<LayerWeights> layers;
  // bf16 when the embedding is stored in bf16: the HF reference then rounds the embedding
  // scales to bf16; KV caches default to this dtype.
  tensor::DType compute_dtype = tensor::DType::kF32;
  // Storage of f16 tensors widened to f32, and of quantized copies (model/gemma4/weight_quantization.h).
  std::vector<std::unique_ptr<std::vector<float>>> owned;
  std::vector<io::HugePageBuffer> owned_bytes;  // load-time quantized matrices (one arena)
  // Static int8 activation fake quantization (model/weight_source.h ActivationQuant) of the
  // Linears that have it, by the weight's data pointer; empty for most checkpoints.
  struct ActScales {
    float input = 0.0f, output = 0.0f;
  };
  std::unordered_map<const void*, ActScales> act_quant;
};

// Finds a tensor by its full checkpoint name; NotFound when absent.
using TensorLookup = std::function<Result<TensorView>(const std::string& name)>;

// Binds every tensor under `prefix` ("model." or "model.language_model.") and checks its shape
// and dtype against `config`. Errors name the tensor: "model.layers.3.mlp.up_proj.weight: shape
// [64, 48], expected [128, 64]".
Result<Weights> BindWeights(const Config& config, const TensorLookup& lookup, const std::string& prefix);

// The matrices a decode step reads whole, in the order it reads them: the PLE model projection,
// each layer's q/k/v/o, gate/up/down, PLE gate/projection and expert stacks, then the LM head.
// Empty views (absent on this layer or model) are left out; the gathered tables (embedding rows,
// PLE table) are not matrices a step streams.
std::vector<TensorView*> StreamedMatrices(Weights* w);
// Every non-empty view of `w` (the streamed matrices, the embedding, the PLE table, the norms...).
std::vector<const TensorView*> AllViews(const Weights& w);
std::vector<TensorView*> AllViews(Weights* w);

// The bytes [begin, end) a view spans, for the load-time passes that move or release a view's bytes
// and must know which other views read them.
struct ByteRange {
  const uint8_t* begin = nullptr;
  const uint8_t* end = nullptr;
  static ByteRange Of(const TensorView& v) {
    const auto* b = static_cast<const uint8_t*>(v.data);
    return {b, b == nullptr ? b : b + v.SizeBytes()};
  }
  bool Overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
  bool Contains(const ByteRange& o) const { return o.begin >= begin && o.end <= end; }
};

}  // namespace gemmad::model::gemma4
