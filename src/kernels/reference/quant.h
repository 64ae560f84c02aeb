// Scalar references of the quantized formats (tensor/quant_blocks.h), in double where it matters:
// activation quantization, weight quantization, and the quantized Linear as a dot product of
// the dequantized values. Every table's quantized kernels are parity-tested against these.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/dtype.h"

namespace gemmad::kernels::reference {

// x: [n, in] (in % 32 == 0) -> q: [n, in], d: [n, in / 32]; the registry's QuantizeActsFn contract.
void QuantizeActs(const float* x, int64_t n, int64_t in, int8_t* q, float* d);
// Rows of w [rows, in] f32 as Q8_R, Q4_0 or F8R (per row amax / 448, E4M3) bytes (rows · RowBytes(dtype, in)).
std::vector<uint8_t> QuantizeRows(const float* w, int64_t rows, int64_t in, tensor::DType dtype);
// Dequantized weight (o, i) of a Q8_R / Q4_0 matrix [rows, in] (a ggml type: DequantizedRow(...)[i]).
double Dequantized(const uint8_t* w, tensor::DType dtype, int64_t rows, int64_t in, int64_t o, int64_t i);
// Row o of a block-quantized matrix [rows, in], dequantized (the ggml types through the exact
// tensor/ggml_quants.h dequantizers, which are themselves checked against gguf-py).
std::vector<double> DequantizedRow(const uint8_t* w, tensor::DType dtype, int64_t rows, int64_t in, int64_t o);
// FP8: y[n, out] for a kF8R matrix w [out, in]: each token quantized to E4M3 as vLLM does
// (tensor/quant_blocks.h kF8R), then s · d · Σ e4m3(x/s) · e4m3(w) accumulated in double.
void LinearF8R(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t out, float* y);
// y[n, out] = Σ_i (d[t, i/32] · q[t, i]) · w_deq[o, i], accumulated in double.
void LinearQuant(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, tensor::DType dtype,
                 int64_t out, float* y);

}  // namespace gemmad::kernels::reference
