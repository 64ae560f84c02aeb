// Tensor-parallel ranks as MPI processes (Open MPI, launched by mpirun: dist/mpi_launch.h). The
// Communicator runs on a duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN, so an MPI failure
// comes back as a Status naming the call; mpi.h stays inside the .cc.
#pragma once

#include <memory>

#include "base/result.h"
#include "dist/communicator.h"

namespace gemmad::dist {

// True when this process was started by an MPI launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
// PMIX_RANK is set).
bool LaunchedByMpi();

// Initialises MPI (MPI_Init_thread asking for MPI_THREAD_SERIALIZED; an error when the library
// provides less) and returns the world's communicator. At most once per process: MPI cannot be
// initialised twice, and a second call is FailedPrecondition.
//
// The communicator owns MPI: its destructor frees its MPI communicator and calls MPI_Finalize, so
// every rank must destroy it (MPI_Finalize is collective) before returning from main, after its
// last collective. When InitMpiWorld fails after MPI_Init_thread succeeded, MPI is left
// initialised (finalising a broken world can hang); the caller should just exit.
//
// Failures of MPI calls are kUnavailable ("MPI_Allgather: <MPI_Error_string>"): the group is
// broken and the process should stop. Argument errors found locally (a wrong out size, a root
// outside [0, size)) return InvalidArgument before communicating; the other ranks then wait in
// the collective, so treat them as the programming errors they are. Ranks passing different
// sizes to the same collective is not detected (MPI's behaviour, usually MPI_ERR_TRUNCATE).
// AllReduceSum never calls MPI_Allreduce (mpi_allreduce.h). BroadcastIdle (MPI_Ibcast of the
// length, then MPI_Bcast of the bytes) matches only BroadcastIdle on the others; its waiting ranks
// poll MPI_Test back to back for 50 us, then sleep 20 us, 40 us, ... up to 1 ms between polls.
Result<std::unique_ptr<Communicator>> InitMpiWorld();

}  // namespace gemmad::dist
