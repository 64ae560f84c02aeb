// EnterOfflineTensorParallel (bench_tensor_parallel.h).
#include "cli/bench_tensor_parallel.h"

#include <cstdio>

#include "cli/tensor_parallel.h"
#include "dist/mpi_communicator.h"

namespace gemmad::cli {

std::optional<int> EnterOfflineTensorParallel(const ParsedFlags& f, const ModelEngineOptions& o,
                                              const std::string& benchmark, const std::vector<std::string>& args,
                                              std::shared_ptr<dist::Communicator>* comm) {
  comm->reset();
  const int n = static_cast<int>(f.GetInt("tensor-parallel-size"));
  if (n <= 1) return std::nullopt;
  auto fail = [&benchmark](int code, const Status& s) {
    std::fprintf(stderr, "gemmad bench %s: error: %s\n", benchmark.c_str(), std::string(s.message()).c_str());
    return code;
  };
  if (!dist::LaunchedByMpi()) {
    if (Status s = CheckTensorParallelSize(o.model_dir, n); !s.ok()) {
      return fail(s.code() == StatusCode::kInvalidArgument ? 2 : 1, s);
    }
    std::vector<std::string> relaunch = {"bench", benchmark};
    relaunch.insert(relaunch.end(), args.begin(), args.end());
    return RunUnderMpirun(n, relaunch);
  }
  auto group = JoinTensorParallelGroup(n);
  if (!group.ok()) return fail(1, group.status());
  if ((*group)->rank() != 0) {
    TensorParallelShard shard;
    shard.model_dir = o.model_dir;
    shard.quantization = o.quantization;
    shard.compute_dtype = o.dtype;
    shard.num_threads = o.num_threads;
    return RunTensorParallelWorker(shard, std::move(*group));
  }
  AnnounceRankZero();
  *comm = std::move(*group);
  return std::nullopt;
}

}  // namespace gemmad::cli
