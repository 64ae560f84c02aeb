// Tests for bare value typing (python_value.h). Expected strings were produced with CPython 3.11
// json.dumps(vllm-style typed value, ensure_ascii=False).
#include "parse/tool_call/python_value.h"

#include <gtest/gtest.h>

#include <limits>
#include <utility>
#include <vector>

namespace gemmad::parse {
namespace {

TEST(BareValueToJson, MatchesPythonTyping) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"3.14", "3.14"}, {"1.50", "1.5"}, {"1.", "1.0"}, {".5", "0.5"}, {"-0.0", "-0.0"},
      {"007", "7"}, {"+5", "5"}, {"-3", "-3"}, {"1_000", "1000"}, {"1e5", "\"1e5\""},
      {"1.5e3", "1500.0"}, {"1.5E-3", "0.0015"}, {"1e400", "\"1e400\""}, {"abc", "\"abc\""},
      {" 42 ", "42"}, {"None", "null"}, {"NIL", "null"}, {"null", "null"}, {"true", "true"},
      {"false", "false"}, {"True", "\"True\""}, {"1__0", "\"1__0\""}, {"_1", "\"_1\""},
      {"1_", "\"1_\""}, {"-", "\"-\""}, {".", "\".\""}, {"1.2.3", "\"1.2.3\""},
      {"0.0001", "0.0001"}, {"0.00001", "1e-05"}, {"1e16", "\"1e16\""},
      {"123456789012345678.0", "1.2345678901234568e+17"},
      {"1234567890123456.0", "1234567890123456.0"},
      {"12345678901234567.0", "1.2345678901234568e+16"}, {"1.e-320", "1e-320"},
      {"0.1", "0.1"}, {"100.0", "100.0"}, {"-00", "0"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"9007199254740993.0", "9007199254740992.0"}, {"inf.", "\"inf.\""},
      {"2.5e-5", "2.5e-05"}, {"1.5j", "\"1.5j\""}, {"a\"b\\", "\"a\\\"b\\\\\""},
      {"123456789012345678901234567890", "123456789012345678901234567890"},
  };
  for (const auto& [raw, want] : cases) EXPECT_EQ(BareValueToJson(raw), want) << raw;
}

TEST(BareValueToJson, NonFiniteFloatStaysText) {
  // vLLM writes Python's float('inf') as the invalid JSON token Infinity; we keep the text.
  EXPECT_EQ(BareValueToJson("1.0e400"), "\"1.0e400\"");
  EXPECT_EQ(BareValueToJson("-1.0e999"), "\"-1.0e999\"");
}

TEST(PyFloatRepr, UsesPythonNotation) {
  EXPECT_EQ(PyFloatRepr(0.0), "0.0");
  EXPECT_EQ(PyFloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(PyFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PyFloatRepr(1e-7), "1e-07");
  EXPECT_EQ(PyFloatRepr(123.456), "123.456");
  EXPECT_EQ(PyFloatRepr(-2.5e-300), "-2.5e-300");
  EXPECT_EQ(PyFloatRepr(std::numeric_limits<double>::denorm_min()), "5e-324");
}

}  // namespace
}  // namespace gemmad::parse
