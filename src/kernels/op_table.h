// OpTable: one backend's implementation of every op in kernels/ops.h, as function pointers with
// exactly the ops.h signatures (decltype keeps them in step). ops.h's free functions check the
// views' device and make one indirect call through the context's backend's table.
//
// GEMMAD_KERNEL_OPS is the one list of ops: the table's fields, each backend's declarations
// (kernels/<backend>/..._ops.h) and each backend's table (kernels/<backend>/backend.cc) expand it,
// so a backend that lacks an op does not link.
#pragma once

#include "kernels/ops.h"

// X(OpsHName, table_field) for every op.
#define GEMMAD_KERNEL_OPS(X) \
  X(Linear, linear) \
  X(LinearMany, linear_many) \
  X(LinearStaticInt8, linear_static_int8) \
  X(LinearStaticInt8Many, linear_static_int8_many) \
  X(LinearGemm, linear_gemm) \
  X(PackGemmWeights, pack_gemm_weights) \
  X(QuantizeWeights, quantize_weights) \
  X(Int4WeightDType, int4_weight_dtype) \
  X(RmsNorm, rms_norm) \
  X(RopeNeox, rope_neox) \
  X(GeluTanhMul, gelu_tanh_mul) \
  X(SoftCap, soft_cap) \
  X(Softmax, softmax) \
  X(Add, add) \
  X(Scale, scale) \
  X(FakeQuantInt8, fake_quant_int8) \
  X(Mul, mul) \
  X(Clamp, clamp) \
  X(ExpShifted, exp_shifted) \
  X(Copy, copy) \
  X(GatherRows, gather_rows) \
  X(SliceColumns, slice_columns) \
  X(EmbeddingGather, embedding_gather) \
  X(KvCacheWrite, kv_cache_write) \
  X(PagedAttention, paged_attention) \
  X(DenseAttention, dense_attention) \
  X(Silu, silu) \
  X(Relu, relu) \
  X(Glu, glu) \
  X(LayerNorm, layer_norm) \
  X(Im2Col, im2col) \
  X(CausalDepthwiseConv1d, causal_depthwise_conv1d) \
  X(ChunkedAttention, chunked_attention) \
  X(MoeRoute, moe_route) \
  X(MoeExperts, moe_experts)

namespace gemmad::kernels {

struct OpTable {
#define GEMMAD_OP_FIELD(Name, field) decltype(&Name) field;
  GEMMAD_KERNEL_OPS(GEMMAD_OP_FIELD)
#undef GEMMAD_OP_FIELD
};

#define GEMMAD_COUNT_OP(Name, field) +1
inline constexpr int kNumOps = 0 GEMMAD_KERNEL_OPS(GEMMAD_COUNT_OP);
#undef GEMMAD_COUNT_OP

}  // namespace gemmad::kernels

// Declares `Name` in the current namespace with the type of kernels::Name (a backend's ops).
#define GEMMAD_DECLARE_OP(Name, field) decltype(::gemmad::kernels::Name) Name;
