// `--tensor-parallel-size N` on the CPU (docs/tensor-parallel.md): N MPI ranks, each holding 1/N of
// every layer. `gemmad serve -tp N` relaunches itself under mpirun (one host) unless an MPI
// launcher started it (several hosts: `mpirun -np N --host a,b gemmad serve ... -tp N`); rank 0
// runs the server, the engine and its share of each step; the other ranks run their shares of
// the steps rank 0 broadcasts (model/gemma4/model_tp.cc) and nothing else. `gemmad bench
// latency|throughput -tp N` do the same with the benchmark on rank 0 (cli/bench_tensor_parallel.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "dist/communicator.h"
#include "model/gemma4/weight_quantization.h"
#include "model/open_weight_source.h"
#include "tensor/dtype.h"

namespace gemmad::cli {

// Runs `mpirun -np n <this program> <args...>` (dist/mpi_launch.h) in its own process group and
// supervises it: SIGINT/SIGTERM are passed to rank 0 (which drains, then stops the other ranks);
// a second signal ends the job at once. Returns mpirun's exit code.
int RunUnderMpirun(int n, const std::vector<std::string>& args);
// This process's CPU affinity from VLLM_CPU_OMP_THREADS_BIND (nothing for "auto", "nobind", unset).
Status BindRankCpus(int rank, int size);
// Rank 0 of a group RunUnderMpirun started: tells the supervisor where to send shutdown signals.
void AnnounceRankZero();

// Joins the MPI world this process was launched in; FailedPrecondition when it does not have
// exactly n ranks. Binds this rank to its VLLM_CPU_OMP_THREADS_BIND CPUs when the variable lists
// them (dist/cpu_bind.h), so ThreadsPerRank() then counts them.
Result<std::shared_ptr<dist::Communicator>> JoinTensorParallelGroup(int n);

// The forward-pass threads of one rank: the CPUs it may run on, shared with the other ranks on
// this host unless mpirun bound each rank to its own (NUMA) CPUs.
int ThreadsPerRank();

// What a worker rank loads: the checkpoint and the load-time options rank 0 uses.
struct TensorParallelShard {
  std::string model_dir;  // resolved (a local directory or file)
  model::gemma4::WeightQuantization quantization = model::gemma4::WeightQuantization::kNone;
  std::optional<tensor::DType> compute_dtype;  // unset: the checkpoint's
  int num_threads = 0;                         // forward-pass threads; 0: ThreadsPerRank()
  model::MmprojChoice mmproj;                  // --mmproj / --no-mmproj, as rank 0 opens the model
};

// InvalidArgument with the model's own reason ("tensor parallel size 3 does not divide the 8
// attention heads of this model") when the checkpoint shard.model_dir names cannot be split n
// ways: checked before relaunching, so that the error is one line (reads the config only; binds
// no weights).
Status CheckTensorParallelSize(const TensorParallelShard& shard, int n);

// Ranks other than 0: loads this rank's shard of the model and runs rank 0's steps until rank 0
// stops them (its Model's destructor does). Returns the process exit code (0 when rank 0 ended
// the group).
int RunTensorParallelWorker(const TensorParallelShard& shard, std::shared_ptr<dist::Communicator> comm);
// The tensor-parallel start of `gemmad serve` and `gemmad bench`, in every process it runs in.
// n <= 1: nullopt, *comm null (one process). Not under MPI: refuses a size the model cannot split
// (fail(status)), else runs `relaunch` under mpirun (RunUnderMpirun) and returns its exit code.
// Under MPI: joins the group; ranks > 0 run RunTensorParallelWorker(shard) and return its exit
// code; rank 0 gets *comm and nullopt (go on serving or benchmarking with it).
std::optional<int> EnterTensorParallel(int n, const TensorParallelShard& shard, const std::vector<std::string>& relaunch,
                                       const std::function<int(const Status&)>& fail,
                                       std::shared_ptr<dist::Communicator>* comm);

}  // namespace gemmad::cli
