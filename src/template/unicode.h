// UTF-8 and Unicode helpers with CPython str semantics: code-point iteration, isspace(),
// upper()/lower() (full mappings, e.g. "ß".upper() == "SS"), isprintable() for repr().
// Invalid UTF-8 bytes decode to U+DC80..U+DCFF (like Python's surrogateescape) and encode back
// to the same byte, so no input byte is ever lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gemmad::tmpl::internal {

struct CaseRun {
  uint32_t start, end;  // inclusive
  int32_t stride;       // 1 or 2
  int32_t delta;
};
struct SpecialCase {
  uint32_t cp;
  const char* utf8;
};
struct PrintRun {
  uint32_t start, end;  // inclusive
};

// Decodes the code point at s[*pos] and advances *pos.
uint32_t NextCodepoint(std::string_view s, size_t* pos);
void AppendCodepoint(std::string& out, uint32_t cp);
size_t CodepointCount(std::string_view s);
bool IsAscii(std::string_view s);

bool IsSpace(uint32_t cp);           // str.isspace()
bool IsPrintable(uint32_t cp);       // str.isprintable()
void AppendUpper(std::string& out, uint32_t cp);
void AppendLower(std::string& out, uint32_t cp);
bool IsCased(uint32_t cp);           // has an upper or lower mapping, or is a cased letter
bool IsLowerCp(uint32_t cp);         // changes under upper()
bool IsUpperCp(uint32_t cp);         // changes under lower()

std::string PyUpper(std::string_view s);
std::string PyLower(std::string_view s);
// str.strip()/lstrip()/rstrip() without arguments (Unicode whitespace) or with a set of chars.
std::string_view PyStrip(std::string_view s, bool left, bool right);
std::string PyStripChars(std::string_view s, std::string_view chars, bool left, bool right);

}  // namespace gemmad::tmpl::internal
