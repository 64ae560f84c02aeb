#include "dist/communicator.h"

#include <gtest/gtest.h>

#include <vector>

#include "dist/rank_sum.h"
#include "dist/test_values.h"

namespace gemmad::dist {
namespace {

TEST(LocalCommunicator, EveryCollectiveIsTheIdentity) {
  LocalCommunicator comm;
  EXPECT_EQ(comm.rank(), 0);
  EXPECT_EQ(comm.size(), 1);
  std::vector<float> data = {1.5f, -2.0f, 3.25f};
  const std::vector<float> before = data;
  ASSERT_TRUE(comm.AllReduceSum(data).ok());
  EXPECT_EQ(data, before);

  std::vector<float> out(3);
  ASSERT_TRUE(comm.AllGather(data, out).ok());
  EXPECT_EQ(out, data);
  std::vector<float> gathered(3);
  ASSERT_TRUE(comm.Gather(data, gathered, 0).ok());
  EXPECT_EQ(gathered, data);

  std::vector<uint8_t> bytes = {1, 2, 3};
  ASSERT_TRUE(comm.Broadcast(&bytes, 0).ok());
  ASSERT_TRUE(comm.BroadcastIdle(&bytes, 0).ok());
  EXPECT_EQ(bytes, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_TRUE(comm.Barrier().ok());
  std::vector<float> empty_out;
  EXPECT_TRUE(comm.AllGather({}, empty_out).ok());
}

TEST(LocalCommunicator, WrongSizesAndRootsAreInvalidArgument) {
  LocalCommunicator comm;
  const std::vector<float> mine = {1, 2};
  std::vector<float> small(1), large(3), right(2);
  EXPECT_EQ(comm.AllGather(mine, small).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(comm.AllGather(mine, large).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(comm.Gather(mine, small, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(comm.Gather(mine, right, 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(right, (std::vector<float>{0, 0}));  // untouched on error
}

TEST(SumInRankOrder, AddsLeftToRightInRankOrder) {
  for (int num_ranks : {1, 2, 3, 4, 7}) {
    std::vector<std::vector<float>> rows;
    std::vector<const float*> per_rank;
    for (int r = 0; r < num_ranks; ++r) rows.push_back(testing::SpreadValues(42, r, 1000));
    for (const auto& row : rows) per_rank.push_back(row.data());
    std::vector<float> out(1000);
    SumInRankOrder(per_rank, out);
    EXPECT_EQ(testing::FirstBitDifference(out, testing::SerialRankSum(42, num_ranks, 1000)), -1) << num_ranks;
    // In place on rank 0's row, as the in-process group's AllReduceSum may.
    SumInRankOrder(per_rank, rows[0]);
    EXPECT_EQ(testing::FirstBitDifference(rows[0], out), -1) << num_ranks;
  }
}

TEST(SpreadValues, AdditionOrderChangesTheirSum) {
  // Guards the tests above: with these inputs a reversed sum differs from the rank-order sum.
  const std::vector<float> forward = testing::SerialRankSum(7, 4, 1000);
  std::vector<float> reverse = testing::SpreadValues(7, 3, 1000);
  for (int r = 2; r >= 0; --r) {
    const std::vector<float> x = testing::SpreadValues(7, r, 1000);
    for (size_t i = 0; i < x.size(); ++i) reverse[i] += x[i];
  }
  EXPECT_NE(testing::FirstBitDifference(forward, reverse), -1);
}

}  // namespace
}  // namespace gemmad::dist
