// Unicode helper tests: lossy UTF-8 decoding (maximal subparts), normalization forms, lowercase,
// properties.
#include "tokenizer/unicode.h"

#include <gtest/gtest.h>

#include "tokenizer/unicode_norm.h"

namespace gemmad::tokenizer::unicode {
namespace {

TEST(Unicode, LossyDecodingReplacesMaximalSubparts) {
  EXPECT_EQ(ToValidUtf8("a\xE2\x82" "b"), "a\xEF\xBF\xBD" "b");             // truncated 3-byte: one U+FFFD
  EXPECT_EQ(ToValidUtf8("\xF0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");          // bad second byte
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(ToValidUtf8("\xC3\xA9"), "\xC3\xA9");
  size_t pos = 0;
  EXPECT_EQ(DecodeUtf8("\xF0\x9F\xA4\x96", &pos), 0x1F916u);
  EXPECT_EQ(pos, 4u);
}

TEST(Unicode, NormalForms) {
  EXPECT_EQ(Normalize("e\xCC\x81", NormalForm::kNFC), "\xC3\xA9");
  EXPECT_EQ(Normalize("\xC3\xA9", NormalForm::kNFD), "e\xCC\x81");
  EXPECT_EQ(Normalize("\xEF\xAC\x81", NormalForm::kNFKC), "fi");                     // ligature
  EXPECT_EQ(Normalize("\xEF\xAC\x81", NormalForm::kNFC), "\xEF\xAC\x81");
  EXPECT_EQ(Normalize("\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8", NormalForm::kNFC), "\xEA\xB0\x81");  // Hangul
  EXPECT_EQ(Normalize("\xEA\xB0\x81", NormalForm::kNFD), "\xE1\x84\x80\xE1\x85\xA1\xE1\x86\xA8");
  // Canonical reordering: dot below (220) before acute (230), then composition.
  EXPECT_EQ(Normalize("a\xCC\x81\xCC\xA3", NormalForm::kNFC), "\xE1\xBA\xA1\xCC\x81");
  EXPECT_EQ(Normalize("\xE2\x84\xAB", NormalForm::kNFC), "\xC3\x85");  // ANGSTROM SIGN -> Å
}

TEST(Unicode, LowercaseAndProperties) {
  std::string s;
  AppendLowercase(U'\u0130', &s);  // İ -> i + combining dot
  EXPECT_EQ(s, "i\xCC\x87");
  s.clear();
  AppendLowercase(U'\u03A3', &s);
  EXPECT_EQ(s, "\xCF\x83");
  EXPECT_TRUE(IsWhitespace(0x3000));
  EXPECT_FALSE(IsWhitespace(0x200B));
  EXPECT_EQ(GetCategory(U'A'), Category::kLu);
  EXPECT_EQ(GetCategory(0x0663), Category::kNd);
  EXPECT_TRUE(IsRegexWordChar(0x24B6));  // Ⓐ is So but Alphabetic, so \w
  EXPECT_TRUE(IsOnigWordChar(0x24B6));
  EXPECT_FALSE(IsOnigWordChar(0x09F4));  // Bengali fraction (No) is not \w
  EXPECT_TRUE(IsNumeric(0x2167));        // Ⅷ (Nl)
  EXPECT_EQ(GetCategory(0x31350), Category::kLo);  // CJK Ext. H (Unicode 15), as HF sees it
  EXPECT_TRUE(IsStripAccentsMark(0x0301));
  EXPECT_FALSE(IsStripAccentsMark(U'a'));
}

}  // namespace
}  // namespace gemmad::tokenizer::unicode
