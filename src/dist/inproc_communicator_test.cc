#include "dist/inproc_communicator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "dist/test_rounds.h"
#include "dist/test_values.h"

namespace gemmad::dist {
namespace {

using testing::FirstBitDifference;
using testing::RunCheckedRound;
using testing::SerialRankSum;
using testing::SpreadValues;

// Runs fn(rank's communicator) on one thread per rank of a fresh group of `size`.
void RunGroup(int size, const std::function<void(Communicator&)>& fn) {
  std::vector<std::unique_ptr<Communicator>> group = MakeInprocGroup(size);
  std::vector<std::thread> threads;
  for (auto& comm : group) threads.emplace_back([&fn, &comm] { fn(*comm); });
  for (auto& t : threads) t.join();
}

class InprocGroupTest : public ::testing::TestWithParam<int> {};

TEST_P(InprocGroupTest, RandomSequencesOfEveryCollectiveMatchSerialResultsBitwise) {
  RunGroup(GetParam(), [](Communicator& comm) {
    for (uint64_t round = 0; round < 400; ++round) EXPECT_EQ(RunCheckedRound(comm, 1000 + round), "");
  });
}

TEST_P(InprocGroupTest, RanksAndSizes) {
  const int p = GetParam();
  std::vector<std::unique_ptr<Communicator>> group = MakeInprocGroup(p);
  ASSERT_EQ(static_cast<int>(group.size()), p);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(group[static_cast<size_t>(r)]->rank(), r);
    EXPECT_EQ(group[static_cast<size_t>(r)]->size(), p);
  }
}

TEST_P(InprocGroupTest, LargeAllReduceIsIdenticalOnEveryRank) {
  const int p = GetParam();
  const size_t n = (size_t{1} << 20) + 3;
  std::vector<std::vector<float>> results(static_cast<size_t>(p));
  RunGroup(p, [&](Communicator& comm) {
    std::vector<float> data = SpreadValues(5, comm.rank(), n);
    ASSERT_TRUE(comm.AllReduceSum(data).ok());
    results[static_cast<size_t>(comm.rank())] = std::move(data);
  });
  const std::vector<float> want = SerialRankSum(5, p, n);
  for (const auto& got : results) EXPECT_EQ(FirstBitDifference(got, want), -1);
}

TEST_P(InprocGroupTest, MismatchesAreTheSameErrorOnEveryRankAndTheGroupGoesOn) {
  RunGroup(GetParam(), [](Communicator& comm) {
    const int p = comm.size(), me = comm.rank();
    std::vector<float> data(static_cast<size_t>(3 + (p > 1 ? me : 0)), 1.0f);
    const Status sizes = comm.AllReduceSum(data);
    if (p > 1) {
      EXPECT_EQ(sizes.code(), StatusCode::kInvalidArgument) << sizes.ToString();
    }
    std::vector<float> mine(2, 1.0f), wrong_out(3);
    EXPECT_EQ(comm.AllGather(mine, wrong_out).code(), StatusCode::kInvalidArgument);  // want 2p
    std::vector<uint8_t> bytes = {1};
    EXPECT_EQ(comm.Broadcast(&bytes, p).code(), StatusCode::kInvalidArgument);  // root outside
    EXPECT_EQ(comm.Gather(mine, wrong_out, -1).code(), StatusCode::kInvalidArgument);
    if (p > 1) {
      const Status ops = me == 0 ? comm.Barrier() : comm.Broadcast(&bytes, 0);
      EXPECT_EQ(ops.code(), StatusCode::kFailedPrecondition) << ops.ToString();
    }
    for (uint64_t round = 0; round < 20; ++round) EXPECT_EQ(RunCheckedRound(comm, 77 + round), "");  // in step
  });
}

TEST_P(InprocGroupTest, BroadcastIdleWaitsForALateRoot) {
  const int p = GetParam();
  RunGroup(p, [](Communicator& comm) {
    const int root = comm.size() - 1;
    std::vector<uint8_t> bytes;
    if (comm.rank() == root) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      bytes = {9, 8, 7};
    }
    ASSERT_TRUE(comm.BroadcastIdle(&bytes, root).ok());
    EXPECT_EQ(bytes, (std::vector<uint8_t>{9, 8, 7}));
  });
}

INSTANTIATE_TEST_SUITE_P(Sizes, InprocGroupTest, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "ranks" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace gemmad::dist
