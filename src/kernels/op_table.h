// OpTable: one backend's implementation of every op in kernels/ops.h, as function pointers with
// exactly the ops.h signatures (decltype keeps them in step). ops.h's free functions check the
// views' device and make one indirect call through the context's backend's table. A backend fills
// every entry (tests/kernels/backend_parity_test.cc checks each table is complete).
#pragma once

#include "kernels/ops.h"

namespace gemmad::kernels {

struct OpTable {
  decltype(&Linear) linear;
  decltype(&LinearMany) linear_many;
  decltype(&QuantizeWeights) quantize_weights;
  decltype(&RmsNorm) rms_norm;
  decltype(&RopeNeox) rope_neox;
  decltype(&GeluTanhMul) gelu_tanh_mul;
  decltype(&SoftCap) soft_cap;
  decltype(&Softmax) softmax;
  decltype(&Add) add;
  decltype(&Scale) scale;
  decltype(&ExpShifted) exp_shifted;
  decltype(&Copy) copy;
  decltype(&GatherRows) gather_rows;
  decltype(&SliceColumns) slice_columns;
  decltype(&EmbeddingGather) embedding_gather;
  decltype(&KvCacheWrite) kv_cache_write;
  decltype(&PagedAttention) paged_attention;
  decltype(&MoeRoute) moe_route;
  decltype(&MoeExperts) moe_experts;
};

inline constexpr int kNumOps = 19;  // entries of OpTable (a new op adds one here and a line in each table)

}  // namespace gemmad::kernels
