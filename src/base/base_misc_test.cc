#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "base/bounded_queue.h"
#include "base/files.h"
#include "base/log.h"
#include "base/rng.h"
#include "base/strings.h"

namespace gemmad {
namespace {

TEST(StringsTest, SplitJoinTrim) {
  EXPECT_EQ(StrSplit("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(StrJoin({"x", "y"}, ", "), "x, y");
  EXPECT_EQ(TrimAscii("  hi \n"), "hi");
  EXPECT_EQ(ToLowerAscii("AbC"), "abc");
  EXPECT_EQ(EditDistance("--max-model-len", "--max-modle-len"), 2u);
}

TEST(StringsTest, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8("héllo 😀"));
  EXPECT_FALSE(IsValidUtf8("\xC3"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // > U+10FFFF
}

TEST(FilesTest, RoundTripAndErrors) {
  std::string dir = ::testing::TempDir();
  std::string path = JoinPath(dir, "gemmad_files_test.txt");
  ASSERT_TRUE(WriteStringToFile(path, "abc\n").ok());
  EXPECT_EQ(*ReadFileToString(path), "abc\n");
  auto missing = ReadFileToString(JoinPath(dir, "does/not/exist"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("does/not/exist"), std::string::npos);
  EXPECT_EQ(JoinPath("a/", "/b"), "a/b");
}

TEST(RngTest, DeterministicAndInRange) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    (void)c.Next();
  }
  Rng r(7);
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    double u = r.Uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    double g = r.Normal();
    sum += g;
    sq += g * g;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.05);
  EXPECT_NEAR(sq / n, 1.0, 0.05);
}

TEST(BoundedQueueTest, ProducersConsumersAndClose) {
  BoundedQueue<int> q(4);
  std::vector<std::thread> producers;
  for (int p = 0; p < 3; ++p) {
    producers.emplace_back([&q, p] {
      for (int i = 0; i < 100; ++i) ASSERT_TRUE(q.Push(p * 1000 + i));
    });
  }
  long total = 0;
  for (int i = 0; i < 300; ++i) total += *q.Pop();
  for (auto& t : producers) t.join();
  EXPECT_EQ(total, 3 * 4950 + 100 * (0 + 1000 + 2000));
  EXPECT_TRUE(q.TryPush(1));
  q.Close();
  EXPECT_FALSE(q.Push(2));
  EXPECT_EQ(*q.Pop(), 1);  // drains what is left
  EXPECT_FALSE(q.Pop().has_value());
}

TEST(LogTest, ParseLevels) {
  EXPECT_EQ(*ParseLogLevel("WARNING"), LogLevel::kWarning);
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_FALSE(ParseLogLevel("loud").ok());
}

}  // namespace
}  // namespace gemmad
