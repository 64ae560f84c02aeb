// The audio tower's forward pass in pieces (internal to model/gemma4/audio_*.cc): the per-call
// activation buffers and one function per block — SSCP subsampling, conformer layer, output.
// Shapes: F feature frames of M mels, T = ceil(F/4) frames after the SSCP, Da hidden, H heads of
// dh, Do output_proj width, Dt text hidden, L relative-table rows.
#pragma once

#include <cstdint>

#include "kernels/context.h"
#include "model/gemma4/audio_config.h"
#include "model/gemma4/audio_weights.h"
#include "model/gemma4/step_buffers.h"

namespace gemmad::model::gemma4::audio {

// The RMSNorms of the FFNs and around the attention are built with transformers' default eps
// (1e-6), not the config's; the LConv's, the SSCP LayerNorms and the projector's use rms_norm_eps.
inline constexpr float kFixedNormEps = 1e-6f;

// Activations of one Encode, in the context's scratch allocator.
struct Buffers {
  Scratch features, cols, conv, h, normed, clipped, q, k, v, attn, branch, wide, pe, rel_k, out, rows, zeros, proj;
  void Bind(kernels::Allocator& allocator);
};

// h [T, Da] = input_proj(flatten(SSCP(features [F, M]))) (§4.3).
void Subsample(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioWeights& w,
               const tensor::TensorView& features, Buffers& b, const tensor::TensorView& h);

// One conformer block over h [T, Da], in place (§4.4, §4.5). pe: [L, Da] relative sinusoids.
void ConformerLayer(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioLayerWeights& w,
                    const tensor::TensorView& pe, Buffers& b, const tensor::TensorView& h);

// y [T, Do] = h · output_projᵀ + bias (§4.6); zeros: [T] i64 zeros (the bias row, broadcast).
void OutputProjection(const kernels::ExecContext& ctx, const AudioWeights& w, const tensor::TensorView& h,
                      const tensor::TensorView& zeros, Buffers& b, const tensor::TensorView& y);
// out [T, Dt] = RMSNorm_∅(y) · embed_audio.embedding_projectionᵀ.
void Project(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioWeights& w, const tensor::TensorView& y,
             Buffers& b, const tensor::TensorView& out);

}  // namespace gemmad::model::gemma4::audio
