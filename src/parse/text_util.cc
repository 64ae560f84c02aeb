// Text helpers (text_util.h).
#include "parse/text_util.h"

#include <cstdint>

namespace gemmad::parse {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Decodes one complete valid UTF-8 character at the start of `s` (length `len`).
uint32_t DecodeAt(std::string_view s, size_t len) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (len) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

bool IsPySpace(uint32_t c) {
  if (c <= 0x7F) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

size_t Utf8UnitLength(std::string_view s, bool* valid) {
  *valid = true;
  const auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    need = 2;
  } else if (c0 >= 0xE0 && c0 <= 0xEF) {
    need = 3;
    if (c0 == 0xE0) lo = 0xA0;
    if (c0 == 0xED) hi = 0x9F;
  } else if (c0 >= 0xF0 && c0 <= 0xF4) {
    need = 4;
    if (c0 == 0xF0) lo = 0x90;
    if (c0 == 0xF4) hi = 0x8F;
  } else {
    *valid = false;
    return 1;
  }
  for (size_t i = 1; i < need; ++i) {
    if (i >= s.size()) return 0;  // valid so far, incomplete
    const auto c = static_cast<unsigned char>(s[i]);
    const bool ok = i == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
    if (!ok) {
      *valid = false;
      return i;
    }
  }
  return need;
}

size_t AppendValidUtf8(std::string_view s, bool at_end, std::string& out) {
  size_t i = 0;
  while (i < s.size()) {
    // Fast path for ASCII runs.
    size_t j = i;
    while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80) ++j;
    out.append(s.substr(i, j - i));
    i = j;
    if (i >= s.size()) break;
    bool valid;
    size_t n = Utf8UnitLength(s.substr(i), &valid);
    if (n == 0) {
      if (!at_end) return i;
      out.append(kReplacement);
      return s.size();
    }
    if (valid) {
      out.append(s.substr(i, n));
    } else {
      out.append(kReplacement);
    }
    i += n;
  }
  return s.size();
}

std::string_view PyStrip(std::string_view s) {
  size_t b = 0;
  while (b < s.size()) {
    bool valid;
    size_t n = Utf8UnitLength(s.substr(b), &valid);
    if (n == 0 || !valid || !IsPySpace(DecodeAt(s.substr(b), n))) break;
    b += n;
  }
  size_t e = s.size();
  while (e > b) {
    // Step back to the start of the last character.
    size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80 && e - k < 4) --k;
    bool valid;
    size_t n = Utf8UnitLength(s.substr(k, e - k), &valid);
    if (n != e - k || !valid || !IsPySpace(DecodeAt(s.substr(k), n))) break;
    e = k;
  }
  return s.substr(b, e - b);
}

bool IsPyWhitespaceOnly(std::string_view s) { return PyStrip(s).empty(); }

void AppendJsonEscaped(std::string_view s, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
}

}  // namespace gemmad::parse
