// MpiStatus: MPI_Error_string into a Status.
#include "dist/mpi_status.h"

#include <fmt/format.h>
#include <mpi.h>

#include <string_view>

namespace gemmad::dist {

Status MpiStatus(const char* call, int rc) {
  if (rc == MPI_SUCCESS) return OkStatus();
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  const std::string_view what(text, static_cast<size_t>(length));
  return UnavailableError(fmt::format("{}: {} (MPI error {})", call, what, rc));
}

}  // namespace gemmad::dist
