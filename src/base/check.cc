// Failure path of GEMMAD_CHECK: print and abort (never returns).
#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace gemmad::internal {

void CheckFailed(const char* file, int line, const char* expr, const std::string& msg) {
  std::fprintf(stderr, "FATAL %s:%d: check failed: %s%s%s\n", file, line, expr,
               msg.empty() ? "" : ": ", msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace gemmad::internal
