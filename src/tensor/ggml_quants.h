// Reference (scalar) dequantization of ggml tensor rows to float, equal bit for bit to gguf-py's
// `gguf.quants.dequantize` (gguf 0.19.0; spec gguf.md §4.2), checked against gguf-py's output for
// random blocks of every type with edge cases (tests/tensor/ggml_dequant_golden_test.cc).
// Exactness does not hinge on the order of operations: an f16 scale has 11 significant bits and the
// integers it meets at most 12 more (Q6_K: int8 scale × 6-bit value), so every product is exact in
// float32 (Q8_K's f32 scale rounds its one product; MXFP4's scale is a power of two), and the only
// other rounding is the final add of Q4_1/Q5_1 (+ m) and Q2_K/Q4_K/Q5_K (− dmin·min), which an
// FMA rounds identically. The grouping still decides the sign of a zero: with d = +0, sc < 0 and
// q = 0, (d·sc)·q is −0 but d·(sc·q) is +0, so the code groups as gguf-py does (Q6_K: (d·sc)·q).
//
// Types: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K,
// IQ4_NL, IQ4_XS and MXFP4. Q8_K (which gguf-py does not dequantize) follows ggml's
// dequantize_row_q8_K: y = d·q. The grid types (IQ1/IQ2/IQ3, TQ*, NVFP4, Q1_0), Q8_1 and the
// integer/F64 types report kUnimplemented.
#pragma once

#include <cstdint>

#include "base/status.h"

namespace gemmad::tensor {

// Whether DequantizeGgmlRow handles the ggml type `type` (an id of tensor/ggml_types.h).
bool CanDequantizeGgml(uint32_t type);

// Dequantizes `n` elements of ggml type `type` from `src` to `dst`. `n` must be a non-negative
// multiple of the type's block size (FindGgmlType(type)->block_size); `src` holds n / block_size
// blocks back to back (GgmlRowBytes bytes, no alignment needed); `dst` holds n floats. Despite the
// name any run of whole blocks works (a row, a tensor). Errors: kInvalidArgument for an unknown
// type id or a bad `n`, kUnimplemented for a known type gemmad cannot dequantize.
Status DequantizeGgmlRow(uint32_t type, const uint8_t* src, int64_t n, float* dst);

}  // namespace gemmad::tensor
