// Small string helpers used across modules (ASCII semantics).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmad {

std::vector<std::string> StrSplit(std::string_view s, char sep);
std::string StrJoin(const std::vector<std::string>& parts, std::string_view sep);
std::string_view TrimAscii(std::string_view s);
std::string ToLowerAscii(std::string_view s);
// Levenshtein distance, used for "did you mean" suggestions.
size_t EditDistance(std::string_view a, std::string_view b);
// True when `s` is valid UTF-8 (no overlongs, no surrogates, max U+10FFFF).
bool IsValidUtf8(std::string_view s);

}  // namespace gemmad
