// RankOrderAllReduce: AllReduceSum over MPI with the same bits on every rank. MPI_Allreduce is
// never used: its reduction order follows Open MPI's algorithm choice (message size, rank count,
// tuning files), so ranks could disagree in the last bit. Here every element is summed in rank
// order by SumInRankOrder, by every rank (small messages) or by the one rank that owns its slice
// (large ones), and copied from there. Internal to dist's MPI files (it names MPI_Comm).
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

#include "base/status.h"

namespace gemmad::dist {

class RankOrderAllReduce {
 public:
  // Messages of at least this many floats take the reduce-scatter path.
  static constexpr size_t kScatterMinFloats = size_t{1} << 16;
  // Floats per round of either path: bounds the scratch and keeps MPI's int counts small.
  static constexpr size_t kChunkFloats = size_t{1} << 22;

  RankOrderAllReduce(MPI_Comm comm, int rank, int size);

  // data[i] = Σ_r rank r's data[i], added in rank order; every rank passes the same size.
  Status Run(std::span<float> data);

 private:
  // Small: MPI_Allgather of every rank's chunk, each rank sums all of it. Each rank receives
  // (p - 1) · n floats and adds p · n: one latency, the most traffic.
  Status GatherSum(std::span<float> chunk);
  // Large: MPI_Alltoallv hands rank r slice r of every rank's chunk, rank r sums its slice, and an
  // in-place MPI_Allgatherv spreads the sums: 2 (p - 1) / p · n received and n added per rank,
  // a ring all-reduce's traffic, for two latencies.
  Status ScatterSumGather(std::span<float> chunk);

  MPI_Comm comm_;
  int rank_;
  std::vector<const float*> per_rank_;  // [p] each rank's row of scratch_
  std::vector<float> scratch_;          // [p, row] what the ranks sent this rank
  std::vector<int> counts_, displs_;    // [p] slice r of a chunk: [displs_[r], + counts_[r])
  std::vector<int> recv_counts_, recv_displs_;  // [p] ScatterSumGather's receive layout
};

}  // namespace gemmad::dist
