// The reference backend: the reference ops in one table, host memory, one thread.
#include "kernels/backend.h"
#include "kernels/reference/backend_ops.h"

namespace gemmad::kernels {

const Backend& ReferenceBackend() {
  namespace r = reference::op;
  static constexpr OpTable kOps = {
#define GEMMAD_OP_ENTRY(Name, field) .field = &r::Name,
      GEMMAD_KERNEL_OPS(GEMMAD_OP_ENTRY)
#undef GEMMAD_OP_ENTRY
  };
  static const Backend kReference{"reference", tensor::kHost, &kOps, &HostAllocator()};
  return kReference;
}

}  // namespace gemmad::kernels
