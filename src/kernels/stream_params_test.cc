#include "kernels/stream_params_choice.h"

#include <gtest/gtest.h>

namespace gemmad::kernels {
namespace {

TEST(StreamParams, ParsesKeysAndKeepsTheRest) {
  StreamParams base;
  base.ahead_short = 111;
  auto p = ParseStreamParams("ahead_long=8k, level=l2,long_row=4096", base);
  auto q = ParseStreamParams("ahead_short_int8=2k", base);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->ahead_short_int8, 2048);
  EXPECT_EQ(q->ahead_short, 111);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->ahead_short, 111);
  EXPECT_EQ(p->ahead_long, 8192);
  EXPECT_EQ(p->long_row_bytes, 4096);
  EXPECT_EQ(p->level, PrefetchLevel::kL2);
  EXPECT_EQ(p->level_bf16, PrefetchLevel::kL2);
  EXPECT_EQ(p->level_int8, PrefetchLevel::kL2);
  EXPECT_EQ(FormatStreamParams(*p),
            "ahead_short=111,ahead_short_int8=8192,ahead_long=8192,long_row=4096,long_streams=4,level=l2,level_bf16=l2,"
            "level_int8=l2,level_ct=l2,level_q4x16=l2,q4x16_groups=4");
  auto back = ParseStreamParams(FormatStreamParams(*p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(FormatStreamParams(*back), FormatStreamParams(*p));
  auto off = ParseStreamParams("level=off");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->level, PrefetchLevel::kOff);
  EXPECT_EQ(off->level_bf16, PrefetchLevel::kOff);
  EXPECT_EQ(off->level_ct, PrefetchLevel::kOff);
  EXPECT_EQ(off->level_q4x16, PrefetchLevel::kOff);
  // `level` sets all five levels; level_bf16 / level_int8 / level_ct / level_q4x16 after it set only
  // their own.
  auto mixed = ParseStreamParams("level=l2,level_bf16=off,level_int8=l1,level_ct=off,level_q4x16=l1");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->level, PrefetchLevel::kL2);
  EXPECT_EQ(mixed->level_bf16, PrefetchLevel::kOff);
  EXPECT_EQ(mixed->level_int8, PrefetchLevel::kL1);
  EXPECT_EQ(mixed->level_ct, PrefetchLevel::kOff);
  EXPECT_EQ(mixed->level_q4x16, PrefetchLevel::kL1);
  auto eight = ParseStreamParams("long_streams=8", base);
  ASSERT_TRUE(eight.ok());
  EXPECT_EQ(eight->long_row_streams, 8);
  auto only = ParseStreamParams("level_int8=off", base);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->level, base.level);
  EXPECT_EQ(only->level_bf16, base.level_bf16);
  EXPECT_EQ(only->level_int8, PrefetchLevel::kOff);
  EXPECT_EQ(only->level_ct, base.level_ct);
  auto ct = ParseStreamParams("level_ct=l2", base);
  ASSERT_TRUE(ct.ok());
  EXPECT_EQ(ct->level, base.level);
  EXPECT_EQ(ct->level_int8, base.level_int8);
  EXPECT_EQ(ct->level_ct, PrefetchLevel::kL2);
  EXPECT_EQ(ct->level_q4x16, base.level_q4x16);
  for (int64_t groups : {1, 2, 4}) {
    auto g = ParseStreamParams("q4x16_groups=" + std::to_string(groups), base);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->q4x16_lone_groups, groups);
    EXPECT_EQ(g->level_q4x16, base.level_q4x16);
  }
}

TEST(StreamParams, RejectsWhatItCannotUse) {
  for (const char* bad : {"ahead_short", "ahead=1", "ahead_short=-1", "ahead_short=2048k", "ahead_short=1x",
                          "level=l3", "ahead_long=", "ahead_short=99999999999", "level_bf16=on",
                          "level_int4=off", "level_ct=2", "long_streams=6", "long_streams=", "q4x16_groups=3",
                          "q4x16_groups=8", "q4x16_groups="}) {
    auto p = ParseStreamParams(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(StreamParams, TableRows) {
  std::string row;
  CpuFacts zen4{"AuthenticAMD", 25, "AMD EPYC", 32 << 10, 1 << 20};
  const StreamParams amd = StreamParamsForCpu(zen4, &row);
  EXPECT_EQ(row, "AMD Zen");
  EXPECT_EQ(amd.level, PrefetchLevel::kL2);
  EXPECT_EQ(amd.level_bf16, PrefetchLevel::kOff);
  EXPECT_EQ(amd.level_int8, PrefetchLevel::kOff);
  EXPECT_EQ(amd.level_ct, PrefetchLevel::kOff);
  EXPECT_EQ(amd.level_q4x16, PrefetchLevel::kOff);
  EXPECT_EQ(amd.long_row_streams, 8);
  EXPECT_EQ(amd.q4x16_lone_groups, 1);
  CpuFacts xeon{"GenuineIntel", 6, "Intel(R) Xeon(R) Processor", 48 << 10, 2 << 20};
  EXPECT_EQ(FormatStreamParams(StreamParamsForCpu(xeon, &row)), FormatStreamParams(StreamParams{}));
  EXPECT_EQ(row, "Intel");
  EXPECT_EQ(FormatStreamParams(StreamParamsForCpu(CpuFacts{}, &row)), FormatStreamParams(StreamParams{}));
  EXPECT_EQ(row, "default");
  // Whatever this machine is, its facts give a usable row.
  const StreamParams here = StreamParamsForCpu(ReadCpuFacts());
  EXPECT_GT(here.ahead_short, 0);
  EXPECT_GT(here.ahead_long, 0);
}

TEST(StreamParams, SetAndRestore) {
  const StreamParams saved = ActiveStreamParams();
  StreamParams p;
  p.ahead_short = 640;
  SetStreamParams(p);
  EXPECT_EQ(ActiveStreamParams().ahead_short, 640);
  SetStreamParams(saved);
  EXPECT_EQ(FormatStreamParams(ActiveStreamParams()), FormatStreamParams(saved));
}

}  // namespace
}  // namespace gemmad::kernels
