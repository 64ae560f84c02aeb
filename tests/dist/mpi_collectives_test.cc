// dist_mpi_check: the MPI communicator across processes (run by ctest under mpirun, 2 and 4
// ranks). Every rank runs every check whatever failed before, so the collectives stay matched;
// a rank that saw a failure prints it and exits 1, which mpirun turns into its own exit status.
#include <fmt/format.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "dist/mpi_communicator.h"
#include "dist/test_rounds.h"
#include "dist/test_values.h"

namespace gemmad::dist {
namespace {

using testing::Concatenated;
using testing::FirstBitDifference;

int g_rank = 0;
int g_failures = 0;

void Expect(bool ok, const std::string& what) {
  if (ok) return;
  ++g_failures;
  std::fprintf(stderr, "dist_mpi_check rank %d: FAILED %s\n", g_rank, what.c_str());
}

// Rank 0 gets every rank's `result` and checks each has its own bits.
void ExpectSameOnEveryRank(Communicator& comm, const std::vector<float>& result, const std::string& what) {
  std::vector<float> all(comm.rank() == 0 ? result.size() * static_cast<size_t>(comm.size()) : 0);
  Expect(comm.Gather(result, all, 0).ok(), what + ": Gather of the results");
  for (int r = 1; r < comm.size() && comm.rank() == 0; ++r) {
    const auto row = all.begin() + static_cast<ptrdiff_t>(result.size() * static_cast<size_t>(r));
    Expect(FirstBitDifference(result, std::vector<float>(row, row + static_cast<ptrdiff_t>(result.size()))) == -1,
           fmt::format("{}: rank {}'s result differs from rank 0's", what, r));
  }
}

void CheckAllReduceSum(Communicator& comm) {
  // Both RankOrderAllReduce paths (from 2^16 floats) and a chunk boundary (2^22 floats).
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{1000}, (size_t{1} << 16) - 1, size_t{1} << 16,
                   (size_t{1} << 20) + 5, (size_t{4} << 20) + 1000}) {
    std::vector<float> data = testing::SpreadValues(n, comm.rank(), n);
    Expect(comm.AllReduceSum(data).ok(), fmt::format("AllReduceSum n {}", n));
    Expect(FirstBitDifference(data, testing::SerialRankSum(n, comm.size(), n)) == -1,
           fmt::format("AllReduceSum n {}: not the serial rank-order sum", n));
    ExpectSameOnEveryRank(comm, data, fmt::format("AllReduceSum n {}", n));
  }
}

void CheckGathers(Communicator& comm) {
  const size_t p = static_cast<size_t>(comm.size());
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{300'001}}) {
    const std::vector<float> mine = testing::SpreadValues(n + 1, comm.rank(), n);
    const std::vector<float> want = Concatenated(n + 1, comm.size(), n);
    std::vector<float> out(n * p, -1.0f);
    Expect(comm.AllGather(mine, out).ok() && FirstBitDifference(out, want) == -1, fmt::format("AllGather n {}", n));
    for (int root = 0; root < comm.size(); ++root) {
      std::vector<float> at_root(comm.rank() == root ? n * p : 0, -1.0f);
      Expect(comm.Gather(mine, at_root, root).ok(), fmt::format("Gather n {} root {}", n, root));
      if (comm.rank() == root) {
        Expect(FirstBitDifference(at_root, want) == -1, fmt::format("Gather n {} root {}: wrong floats", n, root));
      }
    }
  }
}

void CheckBroadcasts(Communicator& comm) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{5} << 20}) {
    for (int root = 0; root < comm.size(); ++root) {
      const std::vector<uint8_t> want = testing::TestBytes(n + static_cast<size_t>(root), n);
      std::vector<uint8_t> bytes = comm.rank() == root ? want : std::vector<uint8_t>(7, 1);
      Expect(comm.Broadcast(&bytes, root).ok() && bytes == want, fmt::format("Broadcast n {} root {}", n, root));
      bytes = comm.rank() == root ? want : std::vector<uint8_t>(n + 3, 2);
      Expect(comm.BroadcastIdle(&bytes, root).ok() && bytes == want,
             fmt::format("BroadcastIdle n {} root {}", n, root));
    }
  }
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The last rank broadcasts after 300 ms; the others wait in BroadcastIdle, sleeping, not spinning.
void CheckBroadcastIdleWithLateRoot(Communicator& comm) {
  const int root = comm.size() - 1;
  const std::vector<uint8_t> want = testing::TestBytes(99, 12345);
  std::vector<uint8_t> bytes;
  Expect(comm.Barrier().ok(), "Barrier before BroadcastIdle");
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ThreadCpuSeconds();
  if (comm.rank() == root) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    bytes = want;
  }
  Expect(comm.BroadcastIdle(&bytes, root).ok() && bytes == want, "BroadcastIdle with a late root");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = ThreadCpuSeconds() - cpu_start;
  if (comm.rank() != root) {
    Expect(wall >= 0.15, fmt::format("BroadcastIdle returned after {:.3f} s, before the root sent", wall));
    Expect(cpu < 0.25 * wall, fmt::format("BroadcastIdle used {:.3f} s of CPU in {:.3f} s: spinning", cpu, wall));
  }
  if (comm.rank() == 0) {
    std::printf("dist_mpi_check: rank 0 waited %.3f s in BroadcastIdle using %.4f s of CPU\n", wall, cpu);
  }
}

void CheckLocalErrors(Communicator& comm) {
  std::vector<uint8_t> bytes = {1};
  Expect(comm.Broadcast(&bytes, comm.size()).code() == StatusCode::kInvalidArgument, "Broadcast root == size()");
  Expect(comm.BroadcastIdle(&bytes, -1).code() == StatusCode::kInvalidArgument, "BroadcastIdle root -1");
  std::vector<float> mine(2), wrong(3);
  Expect(comm.AllGather(mine, wrong).code() == StatusCode::kInvalidArgument, "AllGather with a wrong out");
  Expect(comm.Gather(mine, wrong, comm.size()).code() == StatusCode::kInvalidArgument, "Gather root == size()");
  Result<std::unique_ptr<Communicator>> again = InitMpiWorld();
  Expect(again.status().code() == StatusCode::kFailedPrecondition,
         "a second InitMpiWorld: " + again.status().ToString());
}

int Main() {
  if (!LaunchedByMpi()) std::fprintf(stderr, "dist_mpi_check: not started by mpirun; running as 1 rank\n");
  Result<std::unique_ptr<Communicator>> world = InitMpiWorld();
  if (!world.ok()) {
    std::fprintf(stderr, "dist_mpi_check: %s\n", world.status().ToString().c_str());
    return 1;
  }
  Communicator& comm = **world;
  g_rank = comm.rank();
  if (const char* env = std::getenv("OMPI_COMM_WORLD_SIZE")) {
    Expect(comm.size() == std::atoi(env), fmt::format("size() {} but OMPI_COMM_WORLD_SIZE {}", comm.size(), env));
  }
  const auto start = std::chrono::steady_clock::now();
  CheckAllReduceSum(comm);
  CheckGathers(comm);
  CheckBroadcasts(comm);
  CheckBroadcastIdleWithLateRoot(comm);
  CheckLocalErrors(comm);
  for (uint64_t round = 0; round < 300; ++round) {
    const std::string error = testing::RunCheckedRound(comm, 5000 + round);
    Expect(error.empty(), error);
  }
  Expect(comm.Barrier().ok(), "Barrier");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (comm.rank() == 0 && g_failures == 0) {
    std::printf("dist_mpi_check: %d ranks, every collective right and identical on every rank (%.2f s)\n",
                comm.size(), seconds);
  }
  world->reset();  // MPI_Finalize
  return g_failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gemmad::dist

int main() { return gemmad::dist::Main(); }
