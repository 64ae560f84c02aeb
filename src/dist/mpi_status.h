// MpiStatus: an MPI return code as a Status ("MPI_Bcast: <MPI_Error_string>"), for code that
// includes mpi.h (the MPI communicator, its checks and benchmark).
#pragma once

#include "base/status.h"

namespace gemmad::dist {

// OkStatus() for MPI_SUCCESS, else kUnavailable naming `call` and the error's text and code.
Status MpiStatus(const char* call, int rc);

}  // namespace gemmad::dist
