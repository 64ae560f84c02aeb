// The reference backend's ops (kernels/backend.h): every ops.h contract implemented with the
// scalar reference kernels of this directory (double accumulation, one thread, the context's pool
// unused), for every dtype the CPU backend takes. Reached only through the reference backend's op
// table (reference/backend.cc); internal to kernels/. Every op of GEMMAD_KERNEL_OPS is declared
// with its ops.h type; calls between them name op::.
#pragma once

#include <vector>

#include "kernels/op_table.h"

namespace gemmad::kernels::reference::op {

using tensor::TensorView;

// Defined in reference/ops_{dense,elementwise,attention,moe,audio}.cc.
GEMMAD_KERNEL_OPS(GEMMAD_DECLARE_OP)

// Every element of an f32, bf16, Q8_R or Q4_0 view as float (rank >= 2 block-quantized views are
// taken as rows of their last dim).
std::vector<float> Widen(const TensorView& v);

}  // namespace gemmad::kernels::reference::op
