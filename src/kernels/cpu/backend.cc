// The CPU backend: the kernels/cpu ops in one table, host memory, the context's thread pool.
#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"

namespace gemmad::kernels {

const Backend& CpuBackend() {
  static constexpr OpTable kOps = {
#define GEMMAD_OP_ENTRY(Name, field) .field = &cpu::Name,
      GEMMAD_KERNEL_OPS(GEMMAD_OP_ENTRY)
#undef GEMMAD_OP_ENTRY
  };
  static const Backend kCpu{"cpu", tensor::kHost, &kOps, &HostAllocator()};
  return kCpu;
}

}  // namespace gemmad::kernels
