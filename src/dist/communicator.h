// Communicator: the collectives tensor parallelism needs (docs/tensor-parallel.md), as an
// interface so that the model code never sees the runtime behind it: a single process
// (LocalCommunicator), ranks as threads of one process (dist/inproc_communicator.h, for tests),
// or MPI ranks (dist/mpi_communicator.h). A CUDA backend's NCCL communicator is an addition.
//
// Every rank calls the same collectives in the same order with the same sizes. Results are
// bitwise identical on every rank (sums are taken in rank order, whatever the runtime's own
// reduction algorithm would do), so replicated computations after a reduction (norms, MoE
// routing) never diverge between ranks.
//
// Thread-compatibility: one thread at a time per communicator.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace gemmad::dist {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // data[i] = Σ over ranks r = 0, 1, ... (in that order) of rank r's data[i]; every rank passes
  // the same size and gets the same bits.
  virtual Status AllReduceSum(std::span<float> data) = 0;
  // out = rank 0's `mine`, then rank 1's, ... on every rank; out.size() == size() · mine.size().
  virtual Status AllGather(std::span<const float> mine, std::span<float> out) = 0;
  // Like AllGather, but only `root` receives (out is ignored, and may be empty, elsewhere).
  virtual Status Gather(std::span<const float> mine, std::span<float> out, int root) = 0;
  // root's *bytes replace every other rank's *bytes (any length; the others need not know it).
  virtual Status Broadcast(std::vector<uint8_t>* bytes, int root) = 0;
  // Broadcast for ranks that may wait long (a worker between steps while the server is idle):
  // waiting ranks sleep with a bounded back-off (at most ~1 ms) instead of spinning a core.
  // Every rank, root included, calls BroadcastIdle for such a message (it never matches a
  // Broadcast: MPI does not match blocking with non-blocking collectives).
  virtual Status BroadcastIdle(std::vector<uint8_t>* bytes, int root) = 0;
  virtual Status Barrier() = 0;
};

// size() == 1: every collective is the identity (Broadcast leaves the bytes as they are).
class LocalCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status AllReduceSum(std::span<float>) override { return OkStatus(); }
  Status AllGather(std::span<const float> mine, std::span<float> out) override;
  Status Gather(std::span<const float> mine, std::span<float> out, int root) override;
  Status Broadcast(std::vector<uint8_t>*, int) override { return OkStatus(); }
  Status BroadcastIdle(std::vector<uint8_t>*, int) override { return OkStatus(); }
  Status Barrier() override { return OkStatus(); }
};

}  // namespace gemmad::dist
