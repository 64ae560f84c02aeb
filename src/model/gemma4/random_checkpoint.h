// Torch-free writer of random Gemma 4 checkpoints in the exact Hugging Face layout: config.json,
// generation_config.json and (sharded) safetensors whose names/shapes/dtypes equal what
// transformers saves for the same config. Values are streamed to disk (never all in memory), are
// deterministic in (seed, tensor name) whatever the sharding, and follow text-model.md §14's
// recipe: norms, layer scalars and router scales ~ U(0.5, 1.5), embeddings std 1, other matrices
// std 1/sqrt(in_features). In the multimodal layout a config's vision tower is written too
// (model/gemma4/vision_weight_spec.h; position table std 0.5, std_bias std 0.1, std_scale
// U(0.5, 1.5), clip bounds ±U(1, 3) shared by k/v and gate/up), and its audio tower
// (model/gemma4/audio_weight_spec.h; per_dim_scale std 0.5, output_proj.bias std 0.1, conv fan-in
// in·kernel, clip bounds shared by q/k/v).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/gemma4/config.h"
#include "model/gemma4/config_writer.h"
#include "model/gemma4/random_ct_tensors.h"
#include "tensor/dtype.h"

namespace gemmad::model::gemma4 {

struct RandomCheckpointOptions {
  tensor::DType dtype = tensor::DType::kBF16;  // kBF16, kF16 or kF32
  uint64_t seed = 0;
  int num_shards = 1;             // 1: model.safetensors; N > 1: N shards + index
  bool multimodal = false;        // released layout: text_config, tensors under model.language_model.,
                                  // plus the vision and audio towers when the config has them
  bool unused_kv_tensors = false; // also write KV-shared layers' unused k/v/k_norm
  bool show_progress = false;     // byte progress bar on stderr
  std::string tokenizer_dir;      // if set, copy tokenizer.json and tokenizer_config.json from it
  // The text Linears as compressed-tensors int4 groups of 32 or FP8 per channel
  // (model/gemma4/random_ct_tensors.h), the rest in `dtype`.
  CtWeightFormat ct_format = CtWeightFormat::kDense;
  // With a ct_format: "tensor" or "attn_head" adds a static FP8 KV cache scheme and its scales
  // (CtKvScaleTensors); "" none.
  std::string kv_cache_scheme;
  GenerationDefaults generation;
};

// Bytes of tensor data the checkpoint will hold.
uint64_t CheckpointDataBytes(const Config& config, const RandomCheckpointOptions& options);
// Writes the checkpoint into `out_dir` (created if needed; an older checkpoint there is replaced).
Status WriteRandomCheckpoint(const std::string& out_dir, const Config& config, const RandomCheckpointOptions& options);

// The value distribution used for one tensor, by name (exposed for tests).
struct ValueRecipe {
  enum Kind { kUniform, kSymmetric } kind;
  double lo, hi;  // kUniform: U(lo, hi); kSymmetric: U(-hi, hi), hi = std * sqrt(3)
};
ValueRecipe RecipeFor(const std::string& spec_name, const std::vector<int64_t>& shape);

}  // namespace gemmad::model::gemma4
