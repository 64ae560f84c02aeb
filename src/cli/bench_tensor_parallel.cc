// EnterOfflineTensorParallel (bench_tensor_parallel.h).
#include "cli/bench_tensor_parallel.h"

#include <cstdio>

#include "cli/tensor_parallel.h"

namespace gemmad::cli {

std::optional<int> EnterOfflineTensorParallel(const ParsedFlags& f, const ModelEngineOptions& o,
                                              const std::string& benchmark, const std::vector<std::string>& args,
                                              std::shared_ptr<dist::Communicator>* comm) {
  const int n = static_cast<int>(f.GetInt("tensor-parallel-size"));
  auto fail = [&benchmark](int code, const Status& s) {
    std::fprintf(stderr, "gemmad bench %s: error: %s\n", benchmark.c_str(), std::string(s.message()).c_str());
    return code;
  };
  TensorParallelShard shard;
  shard.model_dir = o.model_dir;
  shard.quantization = o.quantization;
  shard.compute_dtype = o.dtype;
  shard.num_threads = o.num_threads;
  std::vector<std::string> relaunch = {"bench", benchmark};
  relaunch.insert(relaunch.end(), args.begin(), args.end());
  return EnterTensorParallel(n, shard, relaunch,
                             [&](const Status& s) { return fail(s.code() == StatusCode::kInvalidArgument ? 2 : 1, s); },
                             comm);
}

}  // namespace gemmad::cli
