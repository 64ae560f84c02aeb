// The list of compiled backends.
#include "kernels/backend.h"

namespace gemmad::kernels {

std::vector<const Backend*> Backends() { return {&CpuBackend(), &ReferenceBackend()}; }

const Backend* FindBackend(std::string_view name) {
  for (const Backend* b : Backends()) {
    if (b->name == name) return b;
  }
  return nullptr;
}

}  // namespace gemmad::kernels
