#include "kv/kv_plan.h"

#include <gtest/gtest.h>

namespace gemmad::kv {
namespace {

KvPlanInput E2bLike() {
  KvPlanInput in;
  // E2B: 12 sliding layers x 1024 B/token, 3 full layers x 2048 B/token, block 16.
  in.groups.push_back({"sliding", KvGroupKind::kSliding, 512, 0, 12 * 1024 * 16});
  in.groups.push_back({"full", KvGroupKind::kFull, 0, 0, 3 * 2048 * 16});
  in.block_size = 16;
  in.budget_bytes = int64_t{4} << 30;
  in.max_model_len = 131072;
  in.max_num_seqs = 256;
  in.max_num_batched_tokens = 2048;
  return in;
}

TEST(KvPlan, EqualBlocksWhenTheSlidingCapIsHigh) {
  auto plan = PlanKvCache(E2bLike());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->groups[0].num_blocks, plan->groups[1].num_blocks);
  EXPECT_LE(plan->total_bytes, int64_t{4} << 30);
  // 4 GiB / 18 KiB per token ~ 233k tokens -> ~14.5k blocks per group.
  EXPECT_NEAR(static_cast<double>(plan->groups[1].num_blocks), 14563.0, 2.0);
  EXPECT_EQ(plan->max_sequence_tokens, 131072);
}

TEST(KvPlan, SlidingGroupCappedByMaxNumSeqs) {
  KvPlanInput in = E2bLike();
  in.max_num_seqs = 2;
  auto plan = PlanKvCache(in);
  ASSERT_TRUE(plan.ok());
  // 2 sequences x (ceil((511 + 2048 - 1) / 16) + 1 = 161) blocks, plus the null block.
  EXPECT_EQ(plan->groups[0].num_blocks, 2 * 161 + 1);
  EXPECT_GT(plan->groups[1].num_blocks, 14563);
  EXPECT_LE(plan->total_bytes, in.budget_bytes);
}

TEST(KvPlan, TooSmallBudgetNamesTheLargestLength) {
  KvPlanInput in = E2bLike();
  in.budget_bytes = int64_t{256} << 20;  // 256 MiB: ~14.5k tokens
  auto plan = PlanKvCache(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("max_model_len (131072)"), std::string::npos);
  EXPECT_NE(plan.status().message().find("Lower --max-model-len to 14"), std::string::npos)
      << plan.status().message();
}

TEST(KvPlan, AutoMaxModelLenIsTheLargestThatFits) {
  // --max-model-len -1/auto: the derived length when it fits, else the largest that does.
  KvPlanInput in = E2bLike();
  in.fit_max_model_len = true;
  auto whole = PlanKvCache(in);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->max_model_len, 131072);
  in.budget_bytes = int64_t{256} << 20;
  auto plan = PlanKvCache(in);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_GT(plan->max_model_len, 14000);
  EXPECT_LT(plan->max_model_len, 15000);
  EXPECT_EQ(plan->max_sequence_tokens, plan->max_model_len);
  EXPECT_LE(plan->total_bytes, in.budget_bytes);
  in.fit_max_model_len = false;
  in.max_model_len = plan->max_model_len;
  EXPECT_TRUE(PlanKvCache(in).ok());
  in.max_model_len = plan->max_model_len + 1;  // one more token no longer fits
  EXPECT_EQ(PlanKvCache(in).status().code(), StatusCode::kResourceExhausted);
  in.fit_max_model_len = true;
  in.budget_bytes = 1000;  // not even one block: still an error
  EXPECT_FALSE(PlanKvCache(in).ok());
}

TEST(KvPlan, BudgetBelowOneBlockIsAClearError) {
  KvPlanInput in = E2bLike();
  in.budget_bytes = 1000;
  auto plan = PlanKvCache(in);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("cannot hold even one block"), std::string::npos);
}

TEST(KvPlan, RejectsBadInput) {
  KvPlanInput in = E2bLike();
  in.groups[0].bytes_per_block = 0;
  EXPECT_FALSE(PlanKvCache(in).ok());
  in.groups.clear();
  EXPECT_FALSE(PlanKvCache(in).ok());
}

}  // namespace
}  // namespace gemmad::kv
