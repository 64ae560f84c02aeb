// The audio tower's output projection and its projector into the text space (multimodal.md §4.6),
// and the per-call buffers.
#include "kernels/ops.h"
#include "model/gemma4/audio_blocks.h"
#include "model/gemma4/mm_projector.h"

namespace gemmad::model::gemma4::audio {

using tensor::TensorView;

void Buffers::Bind(kernels::Allocator& allocator) {
  for (Scratch* s : {&features, &cols, &conv, &h, &normed, &clipped, &q, &k, &v, &attn, &branch, &wide, &pe, &rel_k, &out,
                     &rows, &zeros, &proj}) {
    s->Bind(allocator);
  }
}

void OutputProjection(const kernels::ExecContext& ctx, const AudioWeights& w, const TensorView& h,
                      const TensorView& zeros, Buffers& b, const TensorView& y) {
  kernels::LinearGemm(ctx, h, w.output_proj, y);
  const TensorView bias = b.rows.View(y.shape);
  kernels::GatherRows(ctx, w.output_bias, zeros, bias);  // the bias on every row
  kernels::Add(ctx, y, bias, y);
}

void Project(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioWeights& w, const TensorView& y,
             Buffers& b, const TensorView& out) {
  ProjectToText(ctx, y, w.projection, static_cast<float>(c.rms_norm_eps), b.normed, out);
}

}  // namespace gemmad::model::gemma4::audio
