// `gemmad bench latency|throughput --tensor-parallel-size N` (N > 1), as `gemmad serve -tp N`
// (cli/tensor_parallel.h). Not under an MPI launcher: checks that the model splits N ways (one
// line and exit 2 when it does not), then relaunches `gemmad bench <benchmark> args...` under
// mpirun and supervises it. Under one: joins the group; ranks other than 0 load their shards and
// run rank 0's steps until rank 0's engine ends (its Model's destructor stops them), then exit 0;
// rank 0 runs the benchmark with the communicator and alone prints the results.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/flag_parser.h"
#include "cli/model_engine.h"
#include "dist/communicator.h"

namespace gemmad::cli {

// `o`: OfflineEngineOptions of the flags `f`; `benchmark`: "latency" or "throughput"; `args`: its
// arguments (after `gemmad bench <benchmark>`). Returns the exit code when this process has
// nothing else to do (the supervisor of the ranks, a worker rank, or an error, printed as
// "gemmad bench <benchmark>: error: ..."); else nullopt, with *comm set to rank 0's
// communicator under --tensor-parallel-size N > 1 (null otherwise): the caller runs the
// benchmark, keeping *comm until its engine is gone.
std::optional<int> EnterOfflineTensorParallel(const ParsedFlags& f, const ModelEngineOptions& o,
                                              const std::string& benchmark, const std::vector<std::string>& args,
                                              std::shared_ptr<dist::Communicator>* comm);

}  // namespace gemmad::cli
