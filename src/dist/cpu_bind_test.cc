#include "dist/cpu_bind.h"

#include <gtest/gtest.h>

namespace gemmad::dist {
namespace {

TEST(CpuBindTest, ParsesListsAndRanges) {
  auto c = ParseCpuList("4-6,0,5,10-10");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c, (std::vector<int>{0, 4, 5, 6, 10}));
  for (const char* bad : {"", "a", "3-1", "1-", "-2", "1,,2", "1 2", "99999999"}) {
    EXPECT_FALSE(ParseCpuList(bad).ok()) << bad;
  }
}

TEST(CpuBindTest, OneListPerRank) {
  auto r1 = RankCpus("0-31|32-63", 1, 2);
  ASSERT_TRUE(r1.ok());
  ASSERT_TRUE(r1->has_value());
  EXPECT_EQ((*r1)->size(), 32u);
  EXPECT_EQ((*r1)->front(), 32);
  for (const char* none : {"", "auto", "nobind", "all"}) {
    auto r = RankCpus(none, 0, 2);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value()) << none;
  }
  auto wrong = RankCpus("0|1|2", 0, 2);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("3 CPU lists for 2 tensor-parallel ranks"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::dist
