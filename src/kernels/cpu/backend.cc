// The CPU backend: the kernels/cpu ops in one table, host memory, the context's thread pool.
#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"

namespace gemmad::kernels {

const Backend& CpuBackend() {
  static constexpr OpTable kOps = {
      .linear = &cpu::Linear,
      .linear_many = &cpu::LinearMany,
      .quantize_weights = &cpu::QuantizeWeights,
      .rms_norm = &cpu::RmsNorm,
      .rope_neox = &cpu::RopeNeox,
      .gelu_tanh_mul = &cpu::GeluTanhMul,
      .soft_cap = &cpu::SoftCap,
      .softmax = &cpu::Softmax,
      .add = &cpu::Add,
      .scale = &cpu::Scale,
      .exp_shifted = &cpu::ExpShifted,
      .copy = &cpu::Copy,
      .gather_rows = &cpu::GatherRows,
      .slice_columns = &cpu::SliceColumns,
      .embedding_gather = &cpu::EmbeddingGather,
      .kv_cache_write = &cpu::KvCacheWrite,
      .paged_attention = &cpu::PagedAttention,
      .moe_route = &cpu::MoeRoute,
      .moe_experts = &cpu::MoeExperts,
  };
  static const Backend kCpu{"cpu", tensor::kHost, &kOps, &HostAllocator()};
  return kCpu;
}

}  // namespace gemmad::kernels
