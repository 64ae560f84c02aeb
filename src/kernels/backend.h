// Backend: what a compute backend is to the rest of gemmad — an op table (kernels/op_table.h), the
// device its memory lives on, and the allocator that memory comes from (step scratch, KV storage).
// Its execution resource (the CPU thread pool; a GPU stream) travels in the ExecContext.
//
// Two backends exist, both on the host:
//   "cpu"        kernels/cpu/: the optimised kernels, per-ISA tables chosen at run time
//                (kernels/registry.h), spread over the context's thread pool. The default.
//   "reference"  kernels/reference/: the scalar reference kernels (double accumulation, single
//                thread) as a complete second backend; selected by tests and the test binary
//                (gemmad-testing) to run the model end to end through the reference.
#pragma once

#include <string_view>
#include <vector>

#include "kernels/allocator.h"
#include "kernels/op_table.h"
#include "tensor/device.h"

namespace gemmad::kernels {

struct Backend {
  std::string_view name;
  tensor::Device device;
  const OpTable* ops;
  Allocator* allocator;
};

const Backend& CpuBackend();        // kernels/cpu/backend.cc
const Backend& ReferenceBackend();  // kernels/reference/backend.cc

// Every backend compiled in, the default ("cpu") first.
std::vector<const Backend*> Backends();
// The backend called `name`, or nullptr.
const Backend* FindBackend(std::string_view name);

}  // namespace gemmad::kernels
