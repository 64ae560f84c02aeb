// Unicode helpers for the tokenizer: UTF-8 coding, character properties and lowercase mapping,
// with the data of unicode_data_*.cc (measured on HF tokenizers 0.23.3, see the generator).
// Invariant: every function is total over 0..0x10FFFF and never reads past its input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmad::tokenizer::unicode {

// General categories in the order of the generated tables.
enum class Category : uint8_t {
  kLu, kLl, kLt, kLm, kLo, kMn, kMc, kMe, kNd, kNl, kNo, kPc, kPd, kPs, kPe,
  kPi, kPf, kPo, kSm, kSc, kSk, kSo, kZs, kZl, kZp, kCc, kCf, kCs, kCo, kCn,
};

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes the code point at s[*pos] and advances *pos. An invalid or truncated sequence yields
// U+FFFD and advances past the maximal invalid subpart (as WHATWG/Rust lossy decoding does).
char32_t DecodeUtf8(std::string_view s, size_t* pos);
// Length in bytes of the valid UTF-8 sequence at s[pos], or 0 when it is not valid.
size_t ValidSequenceLength(std::string_view s, size_t pos);
void AppendUtf8(char32_t cp, std::string* out);
inline size_t Utf8Length(char32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }
// Replaces invalid sequences by U+FFFD (Rust String::from_utf8_lossy).
std::string ToValidUtf8(std::string_view s);

// General category as Oniguruma (HF's regex engine) sees it.
Category GetCategory(char32_t cp);
// White_Space (Rust char::is_whitespace, regex \s, Oniguruma \s).
bool IsWhitespace(char32_t cp);
inline bool IsLetter(Category c) { return c <= Category::kLo; }
inline bool IsMark(Category c) { return c >= Category::kMn && c <= Category::kMe; }
inline bool IsNumber(Category c) { return c >= Category::kNd && c <= Category::kNo; }
inline bool IsPunctuation(Category c) { return c >= Category::kPc && c <= Category::kPo; }
inline bool IsSymbol(Category c) { return c >= Category::kSm && c <= Category::kSo; }
// Rust char::is_numeric (Nd, Nl, No).
bool IsNumeric(char32_t cp);
// Rust `regex` \w (Alphabetic, M, Nd, Pc, Join_Control), used by Whitespace and single_word.
bool IsRegexWordChar(char32_t cp);
// Oniguruma \w (the same UTS #18 definition, as HF's Oniguruma build has it).
bool IsOnigWordChar(char32_t cp);
// Removed by the StripAccents normalizer (combining marks of HF's normalization crate).
bool IsStripAccentsMark(char32_t cp);

// Appends the lowercase form of `cp` (Rust char::to_lowercase; may be several code points).
void AppendLowercase(char32_t cp, std::string* out);

}  // namespace gemmad::tokenizer::unicode
