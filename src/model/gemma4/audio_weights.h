// AudioWeights: the Gemma 4 audio tower and projector (multimodal.md §4.2) bound from a
// WeightSource, every tensor as float32 (f32 tensors zero-copy, bf16/f16 widened once into owned
// copies) and checked against the AudioConfig. Prepared at load: the SSCP conv kernels as GEMM
// matrices over channel-last im2col rows ([Cout, 3·3·Cin], taps (kt, kf, cin) with cin fastest),
// the depthwise kernels as [Da, K], each layer's query scale dh^-0.5 / ln 2 · softplus(per_dim_scale)
// and output_proj's bias as one row; the matrices kernels::LinearGemm multiplies (marked "packed")
// in kernels::PackGemmWeights' layout [ceil(out / 32), in, 32] (owned copies: a bf16 checkpoint
// costs no more than widening it). Clip bounds absent from the checkpoint are ±inf.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "model/gemma4/audio_config.h"
#include "model/gemma4/clipped_linear.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

struct AudioFeedForwardWeights {
  tensor::TensorView pre_norm, post_norm;  // [Da]
  ClippedLinear up;    // ffw_layer_1 [4Da, Da], packed
  ClippedLinear down;  // ffw_layer_2 [Da, 4Da], packed
};

struct AudioLayerWeights {
  AudioFeedForwardWeights ffn1, ffn2;
  tensor::TensorView norm_pre_attn, norm_post_attn, norm_out;  // [Da]
  ClippedLinear q, k, v, post;  // [Da, Da], packed
  tensor::TensorView relative_k;  // [Da, Da] relative_k_proj (no bias, no clipping)
  tensor::TensorView q_scale;     // [dh]: dh^-0.5 / ln 2 · softplus(per_dim_scale)
  tensor::TensorView lconv_pre_norm, conv_norm;  // [Da]
  ClippedLinear linear_start;  // [2Da, Da], packed
  ClippedLinear linear_end;    // [Da, Da], packed
  tensor::TensorView depthwise;  // [Da, K]
};

struct AudioWeights {
  tensor::TensorView conv0, norm0;  // [c0, 9] packed, [c0]
  tensor::TensorView conv1, norm1;  // [c1, 9·c0] (taps permuted, see above), [c1]
  tensor::TensorView input_proj;    // [Da, (c0/4)·c1], packed
  std::vector<AudioLayerWeights> layers;
  tensor::TensorView output_proj;   // [Do, Da], packed
  tensor::TensorView output_bias;   // [1, Do]
  tensor::TensorView projection;    // [Dt, Do] embed_audio.embedding_projection
  std::vector<std::unique_ptr<std::vector<float>>> owned;  // storage of converted/prepared tensors
};

// Binds every tensor of AudioWeightSpec(config, text_hidden). Errors name the tensor: missing,
// wrong shape, unsupported dtype, or a model.audio_tower.* tensor the config does not use (e.g.
// clip bounds with use_clipped_linears false).
Result<AudioWeights> LoadAudioWeights(const WeightSource& source, const AudioConfig& config, int64_t text_hidden);

}  // namespace gemmad::model::gemma4
