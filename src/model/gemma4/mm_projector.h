// The multimodal embedder of both towers (HF Gemma4MultimodalEmbedder, multimodal.md §3.9, §4.6):
// a tower's output rows into the text model's embedding space.
#pragma once

#include "kernels/context.h"
#include "model/gemma4/step_buffers.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// out [N, Dt] = RMSNorm_∅(x [N, D], eps) · projectionᵀ (projection [Dt, D]); `normed` holds the
// normalised rows.
void ProjectToText(const kernels::ExecContext& ctx, const tensor::TensorView& x, const tensor::TensorView& projection,
                   float eps, Scratch& normed, const tensor::TensorView& out);

}  // namespace gemmad::model::gemma4
