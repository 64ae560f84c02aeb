// CountingCommunicator: wraps another Communicator and counts, per collective kind, the calls, the
// message bytes (one rank's contribution: an all-reduce's buffer, a gather's part, a broadcast's
// payload) and the wall time spent inside them on this rank. For the tensor-parallel summary line
// and benchmarks (docs/tensor-parallel.md); the counts are this rank's and not synchronized.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "dist/communicator.h"

namespace gemmad::dist {

struct CollectiveCounts {
  int64_t calls = 0;
  int64_t bytes = 0;
  double seconds = 0.0;
};

struct CommunicatorStats {
  CollectiveCounts all_reduce, gather, broadcast, other;
  double seconds() const { return all_reduce.seconds + gather.seconds + broadcast.seconds + other.seconds; }
  // "86380 all-reduces (41.2 MiB, 0.10 s), 1234 gathers (632.0 MiB, 0.30 s), 1234 broadcasts (...)"
  std::string ToString() const;
};

class CountingCommunicator final : public Communicator {
 public:
  explicit CountingCommunicator(std::shared_ptr<Communicator> inner) : inner_(std::move(inner)) {}
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  Status AllReduceSum(std::span<float> data) override;
  Status AllGather(std::span<const float> mine, std::span<float> out) override;
  Status Gather(std::span<const float> mine, std::span<float> out, int root) override;
  Status Broadcast(std::vector<uint8_t>* bytes, int root) override;
  Status BroadcastIdle(std::vector<uint8_t>* bytes, int root) override;
  Status Barrier() override;
  const CommunicatorStats& stats() const { return stats_; }

 private:
  template <typename F>
  Status Count(CollectiveCounts* c, int64_t bytes, F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = f();
    c->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++c->calls;
    c->bytes += bytes;
    return s;
  }
  std::shared_ptr<Communicator> inner_;
  CommunicatorStats stats_;
};

}  // namespace gemmad::dist
