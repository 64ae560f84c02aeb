// The reference backend: the reference ops in one table, host memory, one thread.
#include "kernels/backend.h"
#include "kernels/reference/backend_ops.h"

namespace gemmad::kernels {

const Backend& ReferenceBackend() {
  namespace r = reference::op;
  static constexpr OpTable kOps = {
      .linear = &r::Linear,
      .linear_many = &r::LinearMany,
      .quantize_weights = &r::QuantizeWeights,
      .rms_norm = &r::RmsNorm,
      .rope_neox = &r::RopeNeox,
      .gelu_tanh_mul = &r::GeluTanhMul,
      .soft_cap = &r::SoftCap,
      .softmax = &r::Softmax,
      .add = &r::Add,
      .scale = &r::Scale,
      .exp_shifted = &r::ExpShifted,
      .copy = &r::Copy,
      .gather_rows = &r::GatherRows,
      .slice_columns = &r::SliceColumns,
      .embedding_gather = &r::EmbeddingGather,
      .kv_cache_write = &r::KvCacheWrite,
      .paged_attention = &r::PagedAttention,
      .moe_route = &r::MoeRoute,
      .moe_experts = &r::MoeExperts,
  };
  static const Backend kReference{"reference", tensor::kHost, &kOps, &HostAllocator()};
  return kReference;
}

}  // namespace gemmad::kernels
