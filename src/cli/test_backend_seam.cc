// GEMMAD_TEST_BACKEND, read by the test binary's main only (test_seams.h). In a file of its own
// so that the release binary, which never calls it, does not link it (nor the variable's name).
#include <cstdlib>
#include <string>

#include "cli/test_seams.h"

namespace gemmad::cli {

Result<const kernels::Backend*> TestBackendFromEnvironment() {
  const char* name = std::getenv(kTestBackendEnv);
  if (name == nullptr || *name == '\0') return static_cast<const kernels::Backend*>(nullptr);
  if (const kernels::Backend* b = kernels::FindBackend(name)) return b;
  std::string known;
  for (const kernels::Backend* b : kernels::Backends()) known += (known.empty() ? "" : ", ") + std::string(b->name);
  return InvalidArgumentError(std::string(kTestBackendEnv) + "=" + name + ": no such backend (" + known + ")");
}

}  // namespace gemmad::cli
