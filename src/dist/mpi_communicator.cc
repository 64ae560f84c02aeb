// MpiCommunicator: the Communicator over a duplicate of MPI_COMM_WORLD (MPI_ERRORS_RETURN).
// AllReduceSum is RankOrderAllReduce (mpi_allreduce.h: rank-order sums, never MPI_Allreduce);
// BroadcastIdle's waiting ranks poll a non-blocking broadcast and sleep between polls.
#include "dist/mpi_communicator.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <ctime>

#include "base/check.h"
#include "dist/mpi_allreduce.h"
#include "dist/mpi_status.h"

namespace gemmad::dist {
namespace {

// Bytes per MPI_Bcast: MPI counts are int.
constexpr size_t kBroadcastChunkBytes = size_t{1} << 30;
// BroadcastIdle's waiting ranks poll MPI_Test without pause for 50 us (a root that is about to
// send costs no sleep: one nanosleep is ~60-90 us with the default timer slack), then sleep
// 20 us, 40 us, ... up to 1 ms between polls.
constexpr auto kIdleSpin = std::chrono::microseconds(50);
constexpr long kIdleFirstSleepNs = 20'000;
constexpr long kIdleMaxSleepNs = 1'000'000;

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, int rank, int size)
      : comm_(comm), rank_(rank), size_(size), all_reduce_(comm, rank, size) {}
  ~MpiCommunicator() override {
    MPI_Comm_free(&comm_);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status AllReduceSum(std::span<float> data) override { return all_reduce_.Run(data); }

  Status AllGather(std::span<const float> mine, std::span<float> out) override {
    GEMMAD_RETURN_IF_ERROR(CheckGather("AllGather", mine, out));
    const int n = static_cast<int>(mine.size());
    return MpiStatus("MPI_Allgather", MPI_Allgather(mine.data(), n, MPI_FLOAT, out.data(), n, MPI_FLOAT, comm_));
  }

  Status Gather(std::span<const float> mine, std::span<float> out, int root) override {
    GEMMAD_RETURN_IF_ERROR(CheckRoot("Gather", root));
    if (rank_ == root) GEMMAD_RETURN_IF_ERROR(CheckGather("Gather", mine, out));
    if (mine.size() > INT_MAX) return CountTooLarge("Gather", mine.size());
    const int n = static_cast<int>(mine.size());
    return MpiStatus("MPI_Gather", MPI_Gather(mine.data(), n, MPI_FLOAT, rank_ == root ? out.data() : nullptr,
                                              n, MPI_FLOAT, root, comm_));
  }

  Status Broadcast(std::vector<uint8_t>* bytes, int root) override {
    GEMMAD_CHECK(bytes != nullptr, "Broadcast: bytes is null");
    GEMMAD_RETURN_IF_ERROR(CheckRoot("Broadcast", root));
    int64_t length = static_cast<int64_t>(bytes->size());
    GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Bcast", MPI_Bcast(&length, 1, MPI_INT64_T, root, comm_)));
    return BroadcastPayload(bytes, length, root);
  }

  Status BroadcastIdle(std::vector<uint8_t>* bytes, int root) override {
    GEMMAD_CHECK(bytes != nullptr, "BroadcastIdle: bytes is null");
    GEMMAD_RETURN_IF_ERROR(CheckRoot("BroadcastIdle", root));
    int64_t length = static_cast<int64_t>(bytes->size());
    MPI_Request request = MPI_REQUEST_NULL;
    GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Ibcast", MPI_Ibcast(&length, 1, MPI_INT64_T, root, comm_, &request)));
    if (rank_ == root) {
      GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Wait", MPI_Wait(&request, MPI_STATUS_IGNORE)));
    } else {
      GEMMAD_RETURN_IF_ERROR(WaitSleeping(&request));
    }
    return BroadcastPayload(bytes, length, root);
  }

  Status Barrier() override { return MpiStatus("MPI_Barrier", MPI_Barrier(comm_)); }

 private:
  Status CheckRoot(const char* op, int root) const {
    if (root >= 0 && root < size_) return OkStatus();
    return InvalidArgumentError(fmt::format("{}: root {} outside [0, {})", op, root, size_));
  }
  Status CheckGather(const char* op, std::span<const float> mine, std::span<float> out) const {
    if (mine.size() > INT_MAX) return CountTooLarge(op, mine.size());
    const size_t want = mine.size() * static_cast<size_t>(size_);
    if (out.size() == want) return OkStatus();
    return InvalidArgumentError(fmt::format("{}: out has {} floats, want size() * mine.size() = {}", op,
                                            out.size(), want));
  }
  static Status CountTooLarge(const char* op, size_t n) {
    return InvalidArgumentError(fmt::format("{}: {} floats per rank is over MPI's int count", op, n));
  }

  // Every rank knows `length` (root's bytes->size()); non-roots resize, then MPI_Bcast by chunks.
  Status BroadcastPayload(std::vector<uint8_t>* bytes, int64_t length, int root) {
    if (rank_ != root) bytes->resize(static_cast<size_t>(length));
    for (size_t begin = 0; begin < bytes->size(); begin += kBroadcastChunkBytes) {
      const int n = static_cast<int>(std::min(kBroadcastChunkBytes, bytes->size() - begin));
      GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Bcast", MPI_Bcast(bytes->data() + begin, n, MPI_BYTE, root, comm_)));
    }
    return OkStatus();
  }

  // MPI_Test, briefly back to back, then with a doubling sleep between tries: a waiting rank costs
  // ~nothing while idle and notices a message within ~1 ms (Open MPI's blocking calls would spin
  // a core the whole time).
  static Status WaitSleeping(MPI_Request* request) {
    const auto spin_end = std::chrono::steady_clock::now() + kIdleSpin;
    long sleep_ns = kIdleFirstSleepNs;
    for (;;) {
      int done = 0;
      GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Test", MPI_Test(request, &done, MPI_STATUS_IGNORE)));
      if (done) return OkStatus();
      if (std::chrono::steady_clock::now() < spin_end) continue;
      timespec ts{.tv_sec = 0, .tv_nsec = sleep_ns};
      nanosleep(&ts, nullptr);
      sleep_ns = std::min(2 * sleep_ns, kIdleMaxSleepNs);
    }
  }

  MPI_Comm comm_;
  int rank_;
  int size_;
  RankOrderAllReduce all_reduce_;
};

}  // namespace

bool LaunchedByMpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

Result<std::unique_ptr<Communicator>> InitMpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);  // true after MPI_Finalize too
  if (initialized) return FailedPreconditionError("InitMpiWorld: MPI was already initialised in this process");
  int provided = MPI_THREAD_SINGLE;
  GEMMAD_RETURN_IF_ERROR(
      MpiStatus("MPI_Init_thread", MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided)));
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return FailedPreconditionError(fmt::format(
        "MPI_Init_thread: the MPI library provides thread level {}, gemmad needs MPI_THREAD_SERIALIZED ({})",
        provided, MPI_THREAD_SERIALIZED));
  }
  GEMMAD_RETURN_IF_ERROR(
      MpiStatus("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)));
  MPI_Comm comm = MPI_COMM_NULL;
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Comm_dup", MPI_Comm_dup(MPI_COMM_WORLD, &comm)));
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)));
  int rank = 0, size = 0;
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Comm_rank", MPI_Comm_rank(comm, &rank)));
  GEMMAD_RETURN_IF_ERROR(MpiStatus("MPI_Comm_size", MPI_Comm_size(comm, &size)));
  return std::unique_ptr<Communicator>(std::make_unique<MpiCommunicator>(comm, rank, size));
}

}  // namespace gemmad::dist
