#include "base/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace gemmad {
namespace {

TEST(JsonDepthTest, CountsArraysAndObjectsOutsideStrings) {
  EXPECT_EQ(JsonNestingDepth("1", 10), 0);
  EXPECT_EQ(JsonNestingDepth("{}", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"({"a":[1,{"b":[]}],"c":{}})", 10), 4);
  EXPECT_EQ(JsonNestingDepth(R"({"a":"[[[[{{{{"})", 10), 1);
  EXPECT_EQ(JsonNestingDepth(R"({"a":"\"[[[[\\"})", 10), 1);   // escaped quote stays in the string
  EXPECT_EQ(JsonNestingDepth(R"(["\\",[[]]])", 10), 3);         // escaped backslash ends the escape
  EXPECT_EQ(JsonNestingDepth("]]]][[", 10), 2);                 // malformed text never goes negative
}

TEST(JsonDepthTest, StopsAtTheLimitWithoutReadingFurther) {
  std::string deep(1'000'000, '[');
  EXPECT_EQ(JsonNestingDepth(deep, 64), 65);
  std::string at_limit = std::string(64, '[') + std::string(64, ']');
  EXPECT_EQ(JsonNestingDepth(at_limit, 64), 64);
  std::string over = "[" + at_limit + "]";
  EXPECT_EQ(JsonNestingDepth(over, 64), 65);
}

TEST(JsonDepthTest, ChunkingInvariantOverEveryPrefix) {
  // The depth of a prefix never exceeds the depth of the whole text, and grows one bracket at a time.
  const std::string text = R"({"a":[{"x":"]}"},[[1]]],"b":{"c":{"d":[]}}})";
  int whole = JsonNestingDepth(text, 100);
  int last = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    int d = JsonNestingDepth(std::string_view(text).substr(0, n), 100);
    EXPECT_LE(d, whole);
    EXPECT_GE(d, last);
    EXPECT_LE(d - last, 1);
    last = d;
  }
  EXPECT_EQ(last, whole);
}

}  // namespace
}  // namespace gemmad
