// The CPU backend's ops (kernels/backend.h): the ops.h contracts, implemented in kernels/cpu/*.cc
// over the per-ISA tables of kernels/registry.h and the context's thread pool. Reached only
// through the CPU backend's op table (cpu/backend.cc); internal to kernels/. Every op of
// GEMMAD_KERNEL_OPS is declared with its ops.h type, so the signatures cannot drift; calls between
// them name cpu:: (the ops.h entry point of the same name is visible too).
#pragma once

#include <cstdint>

#include "kernels/op_table.h"

namespace gemmad::kernels::cpu {

using tensor::TensorView;

GEMMAD_KERNEL_OPS(GEMMAD_DECLARE_OP)

// out[0, m) = row r of a Q8_R or Q4_0 matrix ([rows, m], or a stack taken as rows of m).
void DequantizeRow(const TensorView& matrix, int64_t r, float* out);

}  // namespace gemmad::kernels::cpu
