// Tests for the text helpers (text_util.h).
#include "parse/text_util.h"

#include <gtest/gtest.h>

namespace gemmad::parse {
namespace {

TEST(Utf8UnitLength, ClassifiesSequences) {
  bool valid;
  EXPECT_EQ(Utf8UnitLength("a", &valid), 1u);
  EXPECT_TRUE(valid);
  EXPECT_EQ(Utf8UnitLength("\xC3\xA9", &valid), 2u);
  EXPECT_TRUE(valid);
  EXPECT_EQ(Utf8UnitLength("\xE2\x82", &valid), 0u);  // incomplete
  EXPECT_TRUE(valid);
  EXPECT_EQ(Utf8UnitLength("\xF0\x9F\x98\x80", &valid), 4u);
  EXPECT_TRUE(valid);
  EXPECT_EQ(Utf8UnitLength("\xC0\x80", &valid), 1u);  // overlong lead byte
  EXPECT_FALSE(valid);
  EXPECT_EQ(Utf8UnitLength("\xED\xA0\x80", &valid), 1u);  // surrogate: bad second byte
  EXPECT_FALSE(valid);
  EXPECT_EQ(Utf8UnitLength("\xE2\x82x", &valid), 2u);  // truncated by an ASCII byte
  EXPECT_FALSE(valid);
}

TEST(AppendValidUtf8, ReplacesAndHoldsBack) {
  std::string out;
  EXPECT_EQ(AppendValidUtf8("ab\xE2\x82", /*at_end=*/false, out), 2u);
  EXPECT_EQ(out, "ab");
  out.clear();
  EXPECT_EQ(AppendValidUtf8("ab\xE2\x82", /*at_end=*/true, out), 4u);
  EXPECT_EQ(out, "ab\xEF\xBF\xBD");
  out.clear();
  AppendValidUtf8("x\xFFy\xE2\x82\xAC", true, out);
  EXPECT_EQ(out, "x\xEF\xBF\xBDy\xE2\x82\xAC");
}

TEST(PyStrip, StripsUnicodeWhitespace) {
  EXPECT_EQ(PyStrip("  a b \n"), "a b");
  EXPECT_EQ(PyStrip("\xC2\xA0x\xE3\x80\x80"), "x");  // NBSP, ideographic space
  EXPECT_EQ(PyStrip("\x1f\x0bq"), "q");
  EXPECT_EQ(PyStrip("\xC3\xA9"), "\xC3\xA9");
  EXPECT_EQ(PyStrip(" \t "), "");
  EXPECT_TRUE(IsPyWhitespaceOnly("\n\n"));
}

TEST(AppendJsonEscaped, MatchesPythonJsonDumps) {
  std::string out;
  AppendJsonEscaped("a\"b\\c\n\t\r\b\f\x1b\x7f\xC3\xA9", out);
  EXPECT_EQ(out, "a\\\"b\\\\c\\n\\t\\r\\b\\f\\u001b\x7f\xC3\xA9");
}

}  // namespace
}  // namespace gemmad::parse
