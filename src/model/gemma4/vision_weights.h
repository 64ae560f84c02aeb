// VisionWeights: the Gemma 4 vision tower and projector (multimodal.md §3.1) bound from a
// WeightSource, every tensor as float32 (f32 tensors zero-copy, bf16/f16 widened once into owned
// copies) and checked against the VisionConfig. Two tensors are prepared for the forward pass:
// the model maps pixels p in [0, 1] to 2p − 1 before input_proj, so `input_proj` holds 2·W and
// `pos_x` holds table_x − W·1 (row sums of W): h = p·(2W)ᵀ + (table_x[x] − W·1) + table_y[y] =
// (2p − 1)·Wᵀ + table_x[x] + table_y[y] (§3.2). Clip bounds absent from the checkpoint are ±inf.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "model/gemma4/clipped_linear.h"
#include "model/gemma4/vision_config.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

using tensor::TensorView;

struct VisionLayerWeights {
  TensorView input_norm, post_attention_norm, pre_feedforward_norm, post_feedforward_norm;  // [Dv]
  ClippedLinear q, k, v;  // [H·dh, Dv], [Hkv·dh, Dv], [Hkv·dh, Dv]
  ClippedLinear o;        // [Dv, H·dh]
  TensorView q_norm, k_norm;  // [dh]
  ClippedLinear gate, up;     // [I, Dv]
  ClippedLinear down;         // [Dv, I]
};

struct VisionWeights {
  TensorView input_proj;  // [Dv, 3p²]: 2·W (see above)
  TensorView pos_x;       // [position_embedding_size, Dv]: table[0] − W·1
  TensorView pos_y;       // [position_embedding_size, Dv]: table[1]
  std::vector<VisionLayerWeights> layers;
  TensorView std_bias_neg;  // [1, Dv]: −std_bias (standardize only)
  TensorView std_scale;     // [1, Dv] (standardize only)
  TensorView projection;    // [Dt, Dv] embed_vision.embedding_projection
  std::vector<std::unique_ptr<std::vector<float>>> owned;  // storage of converted/prepared tensors
};

// Binds every tensor of VisionWeightSpec(config, text_hidden). Errors name the tensor: missing,
// wrong shape ("…: shape [48, 40], expected [48, 48]"), unsupported dtype, or a model.vision_tower.*
// tensor the config does not use (e.g. clip bounds with use_clipped_linears false). Vestigial
// model.embed_vision.embedding.* tensors are ignored.
Result<VisionWeights> LoadVisionWeights(const WeightSource& source, const VisionConfig& config, int64_t text_hidden);

}  // namespace gemmad::model::gemma4
