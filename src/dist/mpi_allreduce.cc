// RankOrderAllReduce: the two deterministic all-reduce paths over MPI, by chunks.
#include "dist/mpi_allreduce.h"

#include <algorithm>

#include "dist/mpi_status.h"
#include "dist/rank_sum.h"

namespace gemmad::dist {

RankOrderAllReduce::RankOrderAllReduce(MPI_Comm comm, int rank, int size)
    : comm_(comm),
      rank_(rank),
      per_rank_(static_cast<size_t>(size)),
      counts_(static_cast<size_t>(size)),
      displs_(static_cast<size_t>(size)),
      recv_counts_(static_cast<size_t>(size)),
      recv_displs_(static_cast<size_t>(size)) {}

Status RankOrderAllReduce::Run(std::span<float> data) {
  // Every rank cuts the same chunks and so takes the same path for each; both give the same bits.
  for (size_t begin = 0; begin < data.size(); begin += kChunkFloats) {
    std::span<float> chunk = data.subspan(begin, std::min(kChunkFloats, data.size() - begin));
    GEMMAD_RETURN_IF_ERROR(chunk.size() >= kScatterMinFloats ? ScatterSumGather(chunk) : GatherSum(chunk));
  }
  return OkStatus();
}

Status RankOrderAllReduce::GatherSum(std::span<float> chunk) {
  const size_t n = chunk.size(), p = per_rank_.size();
  if (scratch_.size() < p * n) scratch_.resize(p * n);
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Allgather", MPI_Allgather(chunk.data(), static_cast<int>(n), MPI_FLOAT,
                                                                  scratch_.data(), static_cast<int>(n), MPI_FLOAT,
                                                                  comm_)));
  for (size_t r = 0; r < p; ++r) per_rank_[r] = scratch_.data() + r * n;
  SumInRankOrder(per_rank_, chunk);
  return OkStatus();
}

Status RankOrderAllReduce::ScatterSumGather(std::span<float> chunk) {
  const size_t n = chunk.size(), p = per_rank_.size();
  for (size_t r = 0; r < p; ++r) {
    displs_[r] = static_cast<int>(n * r / p);
    counts_[r] = static_cast<int>(n * (r + 1) / p) - displs_[r];
  }
  const int mine = counts_[static_cast<size_t>(rank_)];
  for (size_t r = 0; r < p; ++r) {
    recv_counts_[r] = mine;
    recv_displs_[r] = static_cast<int>(r) * mine;
  }
  const size_t row = static_cast<size_t>(mine);
  if (scratch_.size() < p * row) scratch_.resize(p * row);
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Alltoallv", MPI_Alltoallv(chunk.data(), counts_.data(), displs_.data(),
                                                                  MPI_FLOAT, scratch_.data(), recv_counts_.data(),
                                                                  recv_displs_.data(), MPI_FLOAT, comm_)));
  for (size_t r = 0; r < p; ++r) per_rank_[r] = scratch_.data() + r * row;  // [p, row]
  SumInRankOrder(per_rank_, chunk.subspan(static_cast<size_t>(displs_[static_cast<size_t>(rank_)]), row));
  return MpiStatus("MPI_Allgatherv", MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, chunk.data(),
                                                    counts_.data(), displs_.data(), MPI_FLOAT, comm_));
}

}  // namespace gemmad::dist
