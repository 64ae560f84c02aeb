// GPT-2 bytes_to_unicode.
#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<std::string, 256> to_utf8;
  std::array<int16_t, 512> to_byte{};
  Tables() {
    to_byte.fill(-1);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      to_char[b] = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + n++);
      to_byte[to_char[b]] = static_cast<int16_t>(b);
      unicode::AppendUtf8(to_char[b], &to_utf8[b]);
    }
  }
};

const Tables& Get() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t ByteToChar(uint8_t b) { return Get().to_char[b]; }

int CharToByte(char32_t c) { return c < 512 ? Get().to_byte[c] : -1; }

void AppendByteLevel(std::string_view s, std::string* out) {
  const Tables& t = Get();
  for (char c : s) out->append(t.to_utf8[static_cast<uint8_t>(c)]);
}

}  // namespace gemmad::tokenizer
