#include "base/result.h"
#include "base/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace gemmad {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  GEMMAD_ASSIGN_OR_RETURN(int h, Half(x));
  GEMMAD_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

Status CheckPositive(int x) {
  if (x <= 0) return OutOfRangeError("not positive");
  return OkStatus();
}

Status Both(int a, int b) {
  GEMMAD_RETURN_IF_ERROR(CheckPositive(a));
  GEMMAD_RETURN_IF_ERROR(CheckPositive(b));
  return OkStatus();
}

TEST(StatusTest, OkHasNoMessage) {
  Status s(StatusCode::kOk, "ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorFormatsAndPrefixes) {
  Status s = NotFoundError("no such file");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(), "NOT_FOUND: no such file");
  EXPECT_EQ(s.WithPrefix("config.json").message(), "config.json: no such file");
  EXPECT_EQ(s.WithPrefix("x").code(), StatusCode::kNotFound);
}

TEST(ResultTest, ValueAndErrorPropagate) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "odd: 3");
  EXPECT_EQ(r.value_or(-1), -1);
}

TEST(ResultTest, ReturnIfError) {
  EXPECT_TRUE(Both(1, 2).ok());
  EXPECT_EQ(Both(1, -2).code(), StatusCode::kOutOfRange);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

TEST(ResultDeathTest, ValueOfErrorAborts) {
  Result<int> r = InternalError("boom");
  EXPECT_DEATH({ (void)r.value(); }, "boom");
}

}  // namespace
}  // namespace gemmad
