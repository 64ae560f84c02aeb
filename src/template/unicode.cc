// UTF-8 decoding/encoding and Python string predicates over the generated tables.
#include "template/unicode.h"

#include <algorithm>
#include <vector>

namespace gemmad::tmpl::internal {

extern const CaseRun kUpperRuns[];
extern const size_t kUpperRunsSize;
extern const SpecialCase kUpperSpecial[];
extern const size_t kUpperSpecialSize;
extern const CaseRun kLowerRuns[];
extern const size_t kLowerRunsSize;
extern const SpecialCase kLowerSpecial[];
extern const size_t kLowerSpecialSize;
extern const PrintRun kNonPrintable[];
extern const size_t kNonPrintableSize;

namespace {

const CaseRun* FindRun(const CaseRun* runs, size_t n, uint32_t cp) {
  // Runs are sorted by start and do not overlap.
  const CaseRun* end = runs + n;
  const CaseRun* it = std::upper_bound(runs, end, cp,
                                       [](uint32_t c, const CaseRun& r) { return c < r.start; });
  if (it == runs) return nullptr;
  --it;
  if (cp > it->end) return nullptr;
  if ((cp - it->start) % static_cast<uint32_t>(it->stride) != 0) return nullptr;
  return it;
}

const char* FindSpecial(const SpecialCase* table, size_t n, uint32_t cp) {
  for (size_t i = 0; i < n; ++i) {
    if (table[i].cp == cp) return table[i].utf8;
  }
  return nullptr;
}

void AppendMapped(std::string& out, uint32_t cp, const CaseRun* runs, size_t nruns,
                  const SpecialCase* special, size_t nspecial) {
  if (cp < 0x80) {
    AppendCodepoint(out, cp);  // caller handles ASCII fast paths; this is the generic path
    return;
  }
  if (const CaseRun* r = FindRun(runs, nruns, cp)) {
    AppendCodepoint(out, static_cast<uint32_t>(static_cast<int64_t>(cp) + r->delta));
    return;
  }
  if (const char* s = FindSpecial(special, nspecial, cp)) {
    out.append(s);
    return;
  }
  AppendCodepoint(out, cp);
}

}  // namespace

uint32_t NextCodepoint(std::string_view s, size_t* pos) {
  size_t i = *pos;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) {
    *pos = i + 1;
    return c;
  }
  int len = 0;
  uint32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  }
  bool ok = len > 0 && i + static_cast<size_t>(len) <= s.size();
  for (int k = 1; ok && k < len; ++k) {
    unsigned char cc = byte(i + static_cast<size_t>(k));
    if ((cc & 0xC0) != 0x80) ok = false;
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (ok && (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))) ok = false;
  if (!ok) {
    *pos = i + 1;
    return 0xDC00 + c;  // surrogateescape
  }
  *pos = i + static_cast<size_t>(len);
  return cp;
}

void AppendCodepoint(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp >= 0xDC80 && cp <= 0xDCFF) {
    out.push_back(static_cast<char>(cp - 0xDC00));  // an escaped invalid byte
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

size_t CodepointCount(std::string_view s) {
  if (IsAscii(s)) return s.size();
  size_t n = 0, pos = 0;
  while (pos < s.size()) {
    NextCodepoint(s, &pos);
    ++n;
  }
  return n;
}

bool IsSpace(uint32_t cp) {
  if (cp < 0x80) return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsPrintable(uint32_t cp) {
  if (cp >= 0x20 && cp < 0x7F) return true;
  if (cp >= 0xDC80 && cp <= 0xDCFF) return false;
  const PrintRun* end = kNonPrintable + kNonPrintableSize;
  const PrintRun* it = std::upper_bound(kNonPrintable, end, cp,
                                        [](uint32_t c, const PrintRun& r) { return c < r.start; });
  if (it == kNonPrintable) return true;
  --it;
  return cp > it->end;
}

void AppendUpper(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp >= 'a' && cp <= 'z' ? cp - 32 : cp));
    return;
  }
  AppendMapped(out, cp, kUpperRuns, kUpperRunsSize, kUpperSpecial, kUpperSpecialSize);
}

void AppendLower(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  AppendMapped(out, cp, kLowerRuns, kLowerRunsSize, kLowerSpecial, kLowerSpecialSize);
}

bool IsLowerCp(uint32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z';
  return FindRun(kUpperRuns, kUpperRunsSize, cp) != nullptr ||
         FindSpecial(kUpperSpecial, kUpperSpecialSize, cp) != nullptr;
}

bool IsUpperCp(uint32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z';
  return FindRun(kLowerRuns, kLowerRunsSize, cp) != nullptr ||
         FindSpecial(kLowerSpecial, kLowerSpecialSize, cp) != nullptr;
}

bool IsCased(uint32_t cp) { return IsLowerCp(cp) || IsUpperCp(cp); }

std::string PyUpper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) AppendUpper(out, NextCodepoint(s, &pos));
  return out;
}

std::string PyLower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) AppendLower(out, NextCodepoint(s, &pos));
  return out;
}

std::string_view PyStrip(std::string_view s, bool left, bool right) {
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t p = b;
      if (!IsSpace(NextCodepoint(s, &p))) break;
      b = p;
    }
  }
  if (right) {
    while (e > b) {
      // Step back to the start of the last code point.
      size_t start = e - 1;
      while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && e - start < 4) {
        --start;
      }
      size_t p = start;
      uint32_t cp = NextCodepoint(s, &p);
      if (p != e) {  // not a well-formed sequence ending at e: treat the last byte alone
        start = e - 1;
        p = start;
        cp = NextCodepoint(s, &p);
      }
      if (!IsSpace(cp)) break;
      e = start;
    }
  }
  return s.substr(b, e - b);
}

std::string PyStripChars(std::string_view s, std::string_view chars, bool left, bool right) {
  std::vector<uint32_t> set;
  for (size_t p = 0; p < chars.size();) set.push_back(NextCodepoint(chars, &p));
  std::vector<uint32_t> cps;
  for (size_t p = 0; p < s.size();) cps.push_back(NextCodepoint(s, &p));
  auto in_set = [&](uint32_t c) { return std::find(set.begin(), set.end(), c) != set.end(); };
  size_t b = 0, e = cps.size();
  if (left) {
    while (b < e && in_set(cps[b])) ++b;
  }
  if (right) {
    while (e > b && in_set(cps[e - 1])) --e;
  }
  std::string out;
  for (size_t i = b; i < e; ++i) AppendCodepoint(out, cps[i]);
  return out;
}

}  // namespace gemmad::tmpl::internal
