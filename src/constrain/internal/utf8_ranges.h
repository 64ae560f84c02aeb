// Splits a code-point range into UTF-8 byte-range sequences: every code point in [lo, hi] (minus
// surrogates) is encoded by exactly one sequence, each sequence a list of per-byte ranges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmad::constrain::internal {

struct ByteRange {
  uint8_t lo = 0;
  uint8_t hi = 0;
};

std::vector<std::vector<ByteRange>> Utf8Sequences(uint32_t lo, uint32_t hi);

// Appends the UTF-8 encoding of `cp` (must be a scalar value) to `out`.
void AppendUtf8(uint32_t cp, std::string& out);

// Decodes one UTF-8 code point at `s[i]`; returns its length (0 when invalid) and sets `cp`.
int DecodeUtf8(const std::string& s, size_t i, uint32_t& cp);

}  // namespace gemmad::constrain::internal
