// The GPT-2 byte-to-unicode table used by the ByteLevel pre-tokenizer and decoder: every byte
// maps to one printable code point (printable Latin-1 bytes to themselves, the others to
// U+0100 + n). Invariant: a bijection between the 256 bytes and 256 code points.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmad::tokenizer {

// The code point standing for byte `b`.
char32_t ByteToChar(uint8_t b);
// The byte a code point stands for, or -1 when it is not one of the 256.
int CharToByte(char32_t c);
// Appends the byte-level form of every byte of `s`.
void AppendByteLevel(std::string_view s, std::string* out);

}  // namespace gemmad::tokenizer
