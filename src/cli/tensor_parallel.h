// `--tensor-parallel-size N` on the CPU (docs/tensor-parallel.md): N MPI ranks, each holding 1/N of
// every layer. `gemmad serve -tp N` relaunches itself under mpirun (one host) unless an MPI
// launcher started it (several hosts: `mpirun -np N --host a,b gemmad serve ... -tp N`); rank 0
// runs the server, the engine and its share of each step; the other ranks run their shares of
// the steps rank 0 broadcasts (model/gemma4/model_tp.cc) and nothing else.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "cli/serve_options.h"
#include "dist/communicator.h"

namespace gemmad::cli {

// Runs `mpirun -np n <this program> <args...>` (dist/mpi_launch.h) in its own process group and
// supervises it: SIGINT/SIGTERM are passed to rank 0 (which drains, then stops the other ranks);
// a second signal ends the job at once. Returns mpirun's exit code.
int RunUnderMpirun(int n, const std::vector<std::string>& args);
// Rank 0 of a group RunUnderMpirun started: tells the supervisor where to send shutdown signals.
void AnnounceRankZero();

// Joins the MPI world this process was launched in; FailedPrecondition when it does not have
// exactly n ranks.
Result<std::shared_ptr<dist::Communicator>> JoinTensorParallelGroup(int n);

// The forward-pass threads of one rank: the CPUs it may run on, shared with the other ranks on
// this host unless mpirun bound each rank to its own (NUMA) CPUs.
int ThreadsPerRank();

// Ranks other than 0: loads this rank's shard of the model and runs rank 0's steps until rank 0
// stops them. Returns the process exit code (0 when rank 0 ended the group).
int RunTensorParallelWorker(const ServeOptions& o, std::shared_ptr<dist::Communicator> comm);

}  // namespace gemmad::cli
