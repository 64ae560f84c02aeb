// JSON nesting depth, measured on the raw text before any parser or recursive walk sees it, so that
// a hostile body (`[[[[...` 50,000 deep) is refused in one linear pass without allocating.
#pragma once

#include <cstddef>
#include <string_view>

namespace gemmad {

// Default for --max-request-json-depth: deep enough for any real tool or response schema
// (each schema level is two JSON levels: {"properties": {"x": {...}}}).
inline constexpr int kDefaultMaxJsonDepth = 64;

// The deepest nesting of arrays and objects in `text` (brackets inside strings, escapes included,
// do not count), or `max_depth + 1` as soon as the text goes deeper than `max_depth`. The text
// need not be valid JSON: the parser reports syntax errors afterwards.
int JsonNestingDepth(std::string_view text, int max_depth);

}  // namespace gemmad
