// Tests only: one round of a random sequence of collectives that every rank derives from the same
// seed (the kind, a size, a root), checked against serial results bit for bit. Shared by the
// in-process group's unit test and the MPI check (tests/dist), so both backends face the same.
#pragma once

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <vector>

#include "base/rng.h"
#include "dist/communicator.h"
#include "dist/test_values.h"

namespace gemmad::dist::testing {

inline std::vector<uint8_t> TestBytes(uint64_t seed, size_t n) {
  Rng rng(seed);
  std::vector<uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng.Next());
  return bytes;
}

// [p · n] every rank's SpreadValues(seed, r, n), rank after rank: what (All)Gather must return.
inline std::vector<float> Concatenated(uint64_t seed, int p, size_t n) {
  std::vector<float> all;
  for (int r = 0; r < p; ++r) {
    const std::vector<float> x = SpreadValues(seed, r, n);
    all.insert(all.end(), x.begin(), x.end());
  }
  return all;
}

// Runs round `seed` on `comm`; "" when its result is right on this rank, else what went wrong.
inline std::string RunCheckedRound(Communicator& comm, uint64_t seed) {
  Rng rng(seed);
  const int kind = static_cast<int>(rng.Below(6));
  const size_t sizes[] = {0, 1, 2, 3, 17, 64, 1000, 4099};
  const size_t n = sizes[rng.Below(std::size(sizes))];
  const int root = static_cast<int>(rng.Below(static_cast<uint64_t>(comm.size())));
  const int p = comm.size(), me = comm.rank();
  const std::vector<float> mine = SpreadValues(seed, me, n);
  const std::string where = fmt::format("round {} rank {} n {} root {}", seed, me, n, root);
  Status status;
  int64_t diff = -1;
  if (kind == 0) {
    std::vector<float> data = mine;
    status = comm.AllReduceSum(data);
    diff = FirstBitDifference(data, SerialRankSum(seed, p, n));
  } else if (kind == 1) {
    std::vector<float> out(n * static_cast<size_t>(p), -1.0f);
    status = comm.AllGather(mine, out);
    diff = FirstBitDifference(out, Concatenated(seed, p, n));
  } else if (kind == 2) {
    // Non-roots pass an empty out, which Gather ignores there.
    std::vector<float> out(me == root ? n * static_cast<size_t>(p) : 0, -1.0f);
    status = comm.Gather(mine, out, root);
    if (me == root) diff = FirstBitDifference(out, Concatenated(seed, p, n));
  } else if (kind == 3 || kind == 4) {
    // Non-roots start with bytes of another length, which the root's replace.
    const std::vector<uint8_t> want = TestBytes(seed, n * 3);
    std::vector<uint8_t> bytes = me == root ? want : TestBytes(seed + 1, static_cast<size_t>(me) * 5);
    status = kind == 3 ? comm.Broadcast(&bytes, root) : comm.BroadcastIdle(&bytes, root);
    if (bytes != want) return fmt::format("{}: Broadcast{} delivered other bytes", where, kind == 4 ? "Idle" : "");
  } else {
    status = comm.Barrier();
  }
  if (!status.ok()) return fmt::format("{}: collective {} failed: {}", where, kind, status.ToString());
  if (diff >= 0) return fmt::format("{}: collective {} differs at element {}", where, kind, diff);
  return "";
}

}  // namespace gemmad::dist::testing
