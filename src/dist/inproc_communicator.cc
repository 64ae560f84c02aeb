// MakeInprocGroup: one shared InprocState (a slot per rank and a reusable barrier) behind n
// communicators. Slots are written by their rank before the first barrier and read by all between
// the two barriers; the mutex the barrier takes orders those accesses.
#include "dist/inproc_communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "base/check.h"
#include "dist/rank_sum.h"

namespace gemmad::dist {
namespace {

enum class Op { kAllReduceSum, kAllGather, kGather, kBroadcast, kBarrier };

const char* OpName(Op op) {
  switch (op) {
    case Op::kAllReduceSum: return "AllReduceSum";
    case Op::kAllGather: return "AllGather";
    case Op::kGather: return "Gather";
    case Op::kBroadcast: return "Broadcast";
    case Op::kBarrier: return "Barrier";
  }
  return "?";
}

// What one rank publishes for the collective in progress.
struct Slot {
  Op op = Op::kBarrier;
  int root = 0;
  std::span<const float> floats;  // AllReduceSum's data, (All)Gather's mine
  size_t out_size = 0;            // (All)Gather's out.size()
  const std::vector<uint8_t>* bytes = nullptr;  // Broadcast's *bytes
};

class InprocState {
 public:
  explicit InprocState(int size) : slots_(static_cast<size_t>(size)) {}
  int size() const { return static_cast<int>(slots_.size()); }
  Slot& slot(int rank) { return slots_[static_cast<size_t>(rank)]; }

  void Barrier() {
    std::unique_lock lock(mu_);
    const uint64_t generation = generation_;
    if (++num_arrived_ == size()) {
      num_arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return generation_ != generation; });
  }

  // The same verdict on every rank: every rank reads the same slots.
  Status Check() const {
    const Slot& first = slots_[0];
    const size_t n = first.floats.size();
    for (int r = 0; r < size(); ++r) {
      const Slot& s = slots_[static_cast<size_t>(r)];
      if (s.op != first.op) {
        return FailedPreconditionError(fmt::format("ranks called different collectives: rank 0 {}, rank {} {}",
                                                   OpName(first.op), r, OpName(s.op)));
      }
      if (s.root != first.root) {
        return InvalidArgumentError(fmt::format("{}: rank 0 names root {}, rank {} root {}",
                                                OpName(s.op), first.root, r, s.root));
      }
      if (s.floats.size() != n) {
        return InvalidArgumentError(fmt::format("{}: rank 0 passes {} floats, rank {} passes {}",
                                                OpName(s.op), n, r, s.floats.size()));
      }
      const bool wants_out = s.op == Op::kAllGather || (s.op == Op::kGather && r == s.root);
      if (wants_out && s.out_size != n * slots_.size()) {
        return InvalidArgumentError(fmt::format("{}: rank {}'s out has {} floats, want {}",
                                                OpName(s.op), r, s.out_size, n * slots_.size()));
      }
    }
    if (first.root < 0 || first.root >= size()) {
      return InvalidArgumentError(
          fmt::format("{}: root {} outside [0, {})", OpName(first.op), first.root, size()));
    }
    return OkStatus();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int num_arrived_ = 0;
  uint64_t generation_ = 0;
  std::vector<Slot> slots_;
};

class InprocCommunicator final : public Communicator {
 public:
  InprocCommunicator(std::shared_ptr<InprocState> state, int rank)
      : state_(std::move(state)), rank_(rank), per_rank_(static_cast<size_t>(state_->size())) {}
  int rank() const override { return rank_; }
  int size() const override { return state_->size(); }

  Status AllReduceSum(std::span<float> data) override {
    return Collective({.op = Op::kAllReduceSum, .floats = data}, [&] {
      for (int r = 0; r < size(); ++r) per_rank_[static_cast<size_t>(r)] = state_->slot(r).floats.data();
      sum_.resize(data.size());
      SumInRankOrder(per_rank_, sum_);
    }, [&] { std::copy(sum_.begin(), sum_.end(), data.begin()); });
  }
  Status AllGather(std::span<const float> mine, std::span<float> out) override {
    return Collective({.op = Op::kAllGather, .floats = mine, .out_size = out.size()},
                      [&] { CopyAll(mine.size(), out); });
  }
  Status Gather(std::span<const float> mine, std::span<float> out, int root) override {
    return Collective({.op = Op::kGather, .root = root, .floats = mine, .out_size = out.size()}, [&] {
      if (rank_ == root) CopyAll(mine.size(), out);
    });
  }
  Status Broadcast(std::vector<uint8_t>* bytes, int root) override {
    GEMMAD_CHECK(bytes != nullptr, "Broadcast: bytes is null");
    return Collective({.op = Op::kBroadcast, .root = root, .bytes = bytes}, [&] {
      if (rank_ != root) *bytes = *state_->slot(root).bytes;
    });
  }
  Status BroadcastIdle(std::vector<uint8_t>* bytes, int root) override { return Broadcast(bytes, root); }
  Status Barrier() override {
    return Collective({.op = Op::kBarrier}, [] {});
  }

 private:
  // Publish, barrier, check, `between` (read the others' slots), barrier, `after` (own buffers
  // only: nobody reads them any more). Two barriers whatever the verdict, so ranks stay in step.
  template <typename Between, typename After = void (*)()>
  Status Collective(Slot mine, Between between, After after = [] {}) {
    state_->slot(rank_) = mine;
    state_->Barrier();
    Status status = state_->Check();
    if (status.ok()) between();
    state_->Barrier();
    if (status.ok()) after();
    return status;
  }
  void CopyAll(size_t n, std::span<float> out) {
    for (int r = 0; r < size(); ++r) {
      std::span<const float> x = state_->slot(r).floats;
      std::copy(x.begin(), x.end(), out.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(r) * n));
    }
  }

  std::shared_ptr<InprocState> state_;
  int rank_;
  std::vector<const float*> per_rank_;  // AllReduceSum's scratch: each rank's data
  std::vector<float> sum_;              // [n] AllReduceSum's result before it is copied out
};

}  // namespace

std::vector<std::unique_ptr<Communicator>> MakeInprocGroup(int size) {
  GEMMAD_CHECK(size >= 1, "MakeInprocGroup: size {} < 1", size);
  auto state = std::make_shared<InprocState>(size);
  std::vector<std::unique_ptr<Communicator>> group;
  for (int r = 0; r < size; ++r) group.push_back(std::make_unique<InprocCommunicator>(state, r));
  return group;
}

}  // namespace gemmad::dist
