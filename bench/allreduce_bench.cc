// allreduce_bench: latency and bandwidth of the MPI communicator's collectives (dist/), with Open
// MPI's own MPI_Allreduce for comparison. Run under mpirun, e.g.
//   mpirun -np 2 build/release/bench/allreduce_bench          (as root add --allow-run-as-root)
// Message sizes 4 B ... 64 MiB of floats (powers of 4). Each op runs `iters` times after warm-up,
// each time after a barrier; an iteration's time is its slowest rank's, and the table shows the
// median iteration and the message's bytes over it (GB/s of the message: AllGather's is one
// rank's share). Rank 0 prints the table.
// gemmad-bench-main: a plain main (no Google Benchmark), built as the executable allreduce_bench.
// gemmad-bench-libs: gemmad_dist
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "dist/mpi_communicator.h"

namespace gemmad::dist {
namespace {

struct Timing {
  double median_us = 0;
  double gb_per_s = 0;
};

// Runs op `warmup + iters` times; returns the median over the timed runs of the slowest rank.
Timing Measure(size_t bytes, int warmup, int iters, const std::function<bool()>& op) {
  std::vector<double> times(static_cast<size_t>(iters)), slowest(static_cast<size_t>(iters));
  for (int i = -warmup; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    if (!op()) std::fprintf(stderr, "allreduce_bench: a collective failed\n");
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (i >= 0) times[static_cast<size_t>(i)] = us;
  }
  MPI_Reduce(times.data(), slowest.data(), iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  std::nth_element(slowest.begin(), slowest.begin() + iters / 2, slowest.end());
  Timing t;
  t.median_us = slowest[static_cast<size_t>(iters / 2)];
  t.gb_per_s = static_cast<double>(bytes) / (t.median_us * 1e3);
  return t;
}

std::string Cell(const Timing& t) { return fmt::format("{:>10.1f} {:>6.2f}", t.median_us, t.gb_per_s); }

std::string SizeName(size_t bytes) {
  if (bytes >= (size_t{1} << 20)) return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= (size_t{1} << 10)) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

int Main() {
  Result<std::unique_ptr<Communicator>> world = InitMpiWorld();
  if (!world.ok()) {
    std::fprintf(stderr, "allreduce_bench: %s\n", world.status().ToString().c_str());
    return 1;
  }
  Communicator& comm = **world;
  if (comm.rank() == 0) {
    std::printf("allreduce_bench: %d ranks; median us of the slowest rank, GB/s of the message\n", comm.size());
    std::printf("%-8s %5s | %-17s | %-17s | %-17s | %-17s | %-17s\n", "size", "iters", "AllReduceSum",
                "MPI_Allreduce", "AllGather", "Broadcast", "BroadcastIdle");
  }
  for (size_t bytes = 4; bytes <= (size_t{64} << 20); bytes *= 4) {
    const size_t n = bytes / sizeof(float);
    const int iters = static_cast<int>(std::clamp<size_t>((size_t{256} << 20) / bytes, 9, 1001));
    const int warmup = std::max(2, iters / 10);
    // Zeros: the sums stay zero however often they run (a value's magnitude does not change the
    // speed of a float add, short of denormals).
    std::vector<float> data(n, 0.0f), gathered(n * static_cast<size_t>(comm.size()));
    std::vector<uint8_t> message(bytes, 1);
    const Timing ours = Measure(bytes, warmup, iters, [&] { return comm.AllReduceSum(data).ok(); });
    const Timing raw = Measure(bytes, warmup, iters, [&] {
      return MPI_Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) ==
             MPI_SUCCESS;
    });
    const Timing gather = Measure(bytes, warmup, iters, [&] { return comm.AllGather(data, gathered).ok(); });
    const Timing bcast = Measure(bytes, warmup, iters, [&] { return comm.Broadcast(&message, 0).ok(); });
    const Timing idle = Measure(bytes, warmup, iters, [&] { return comm.BroadcastIdle(&message, 0).ok(); });
    if (comm.rank() == 0) {
      std::printf("%-8s %5d | %s | %s | %s | %s | %s\n", SizeName(bytes).c_str(), iters, Cell(ours).c_str(),
                  Cell(raw).c_str(), Cell(gather).c_str(), Cell(bcast).c_str(), Cell(idle).c_str());
      std::fflush(stdout);
    }
  }
  world->reset();  // MPI_Finalize
  return 0;
}

}  // namespace
}  // namespace gemmad::dist

int main() { return gemmad::dist::Main(); }
