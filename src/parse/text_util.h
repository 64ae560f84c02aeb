// Small text helpers shared by the parsers: UTF-8 sequence checks (for holding back a character
// cut by a chunk boundary), Python str.strip(), and JSON string escaping as Python's
// json.dumps(ensure_ascii=False) writes it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gemmad::parse {

// Length of the UTF-8 unit at the start of `s` (non-empty): the byte length of a complete valid
// character; 0 when `s` is a valid but incomplete prefix of a character (more bytes needed);
// or, with *valid=false, the number of bytes forming the maximal invalid subpart (>= 1), which
// a decoder replaces by one U+FFFD.
size_t Utf8UnitLength(std::string_view s, bool* valid);

// Appends `s` to `out`, replacing invalid UTF-8 by U+FFFD (maximal-subpart rule). `s` must not
// end with an incomplete character unless `at_end` (then it is replaced too). Returns the
// number of bytes consumed: all of `s`, except a trailing incomplete character when !at_end.
size_t AppendValidUtf8(std::string_view s, bool at_end, std::string& out);

// Python str.strip() with no arguments (Unicode whitespace), on UTF-8 text.
std::string_view PyStrip(std::string_view s);
bool IsPyWhitespaceOnly(std::string_view s);

// Appends the JSON escape of UTF-8 text `s` (without quotes): `"` `\` and control characters
// escaped (\n \r \t \b \f, else \u00xx lowercase), everything else raw.
void AppendJsonEscaped(std::string_view s, std::string& out);

}  // namespace gemmad::parse
