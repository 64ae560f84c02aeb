// UTF-8 coding and property lookups over the generated tables.
#include "tokenizer/unicode.h"

#include <algorithm>
#include <vector>

#include "tokenizer/unicode_data.h"

namespace gemmad::tokenizer::unicode {
namespace {

inline bool IsCont(unsigned char c) { return (c & 0xC0) == 0x80; }

uint8_t Lookup(const char* const* blocks, const uint16_t* stage1, char32_t cp) {
  return static_cast<uint8_t>(blocks[stage1[cp >> 8]][cp & 0xFF] - '0');
}

uint8_t Flags(char32_t cp) {
  return cp < 0x110000 ? Lookup(unicode_data::kFlagsBlocks, unicode_data::kFlagsStage1, cp) : 0;
}

}  // namespace

size_t ValidSequenceLength(std::string_view s, size_t pos) {
  const size_t n = s.size();
  const unsigned char c = static_cast<unsigned char>(s[pos]);
  if (c < 0x80) return 1;
  auto at = [&](size_t k) -> int { return pos + k < n ? static_cast<unsigned char>(s[pos + k]) : -1; };
  if (c >= 0xC2 && c <= 0xDF) return (at(1) >= 0 && IsCont(static_cast<unsigned char>(at(1)))) ? 2 : 0;
  int c1 = at(1);
  if (c1 < 0) return 0;
  if (c >= 0xE0 && c <= 0xEF) {
    bool ok1 = (c == 0xE0)   ? (c1 >= 0xA0 && c1 <= 0xBF)
               : (c == 0xED) ? (c1 >= 0x80 && c1 <= 0x9F)
                             : IsCont(static_cast<unsigned char>(c1));
    int c2 = at(2);
    return (ok1 && c2 >= 0 && IsCont(static_cast<unsigned char>(c2))) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    bool ok1 = (c == 0xF0)   ? (c1 >= 0x90 && c1 <= 0xBF)
               : (c == 0xF4) ? (c1 >= 0x80 && c1 <= 0x8F)
                             : IsCont(static_cast<unsigned char>(c1));
    int c2 = at(2), c3 = at(3);
    return (ok1 && c2 >= 0 && IsCont(static_cast<unsigned char>(c2)) && c3 >= 0 &&
            IsCont(static_cast<unsigned char>(c3)))
               ? 4
               : 0;
  }
  return 0;
}

char32_t DecodeUtf8(std::string_view s, size_t* pos) {
  const size_t i = *pos;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    *pos = i + 1;
    return c;
  }
  size_t len = ValidSequenceLength(s, i);
  if (len == 0) {
    // Maximal subpart: the lead byte plus the continuation bytes that were still acceptable.
    size_t k = 1;
    if (c >= 0xC2 && c <= 0xF4) {
      auto ok = [&](size_t j, unsigned char b) {
        if (j == 1) {
          if (c == 0xE0) return b >= 0xA0 && b <= 0xBF;
          if (c == 0xED) return b >= 0x80 && b <= 0x9F;
          if (c == 0xF0) return b >= 0x90 && b <= 0xBF;
          if (c == 0xF4) return b >= 0x80 && b <= 0x8F;
        }
        return IsCont(b);
      };
      size_t need = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      while (k < need && i + k < s.size() && ok(k, static_cast<unsigned char>(s[i + k]))) ++k;
    }
    *pos = i + k;
    return kReplacementChar;
  }
  char32_t cp;
  if (len == 2) {
    cp = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
  } else if (len == 3) {
    cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
  } else {
    cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
  }
  *pos = i + len;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string ToValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    size_t len = ValidSequenceLength(s, i);
    if (len > 0) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      DecodeUtf8(s, &i);
      AppendUtf8(kReplacementChar, &out);
    }
  }
  return out;
}

Category GetCategory(char32_t cp) {
  if (cp >= 0x110000) return Category::kCn;
  return static_cast<Category>(Lookup(unicode_data::kCategoryBlocks, unicode_data::kCategoryStage1, cp));
}

bool IsNumeric(char32_t cp) { return (Flags(cp) & 2) != 0; }
bool IsStripAccentsMark(char32_t cp) { return (Flags(cp) & 4) != 0; }
bool IsOnigWordChar(char32_t cp) { return (Flags(cp) & 8) != 0; }

bool IsWhitespace(char32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  if (cp < 0x85) return false;
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsRegexWordChar(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') || cp == '_';
  }
  return (Flags(cp) & 1) != 0;
}

void AppendLowercase(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  // kLowercase holds variable-length records; an index of record starts is built once.
  static const std::vector<uint32_t>* const kIndex = [] {
    auto* idx = new std::vector<uint32_t>();
    uint32_t off = 0;
    for (int i = 0; i < unicode_data::kNumLowercase; ++i) {
      idx->push_back(off);
      off += 2 + unicode_data::kLowercase[off + 1];
    }
    return idx;
  }();
  auto it = std::lower_bound(kIndex->begin(), kIndex->end(), static_cast<uint32_t>(cp),
                             [](uint32_t off, uint32_t v) { return unicode_data::kLowercase[off] < v; });
  if (it != kIndex->end() && unicode_data::kLowercase[*it] == cp) {
    uint32_t n = unicode_data::kLowercase[*it + 1];
    for (uint32_t k = 0; k < n; ++k) AppendUtf8(unicode_data::kLowercase[*it + 2 + k], out);
    return;
  }
  AppendUtf8(cp, out);
}

}  // namespace gemmad::tokenizer::unicode
