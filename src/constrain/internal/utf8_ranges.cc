// UTF-8 range splitting (see utf8_ranges.h).
#include "constrain/internal/utf8_ranges.h"

#include <algorithm>

namespace gemmad::constrain::internal {
namespace {

constexpr uint32_t kMaxForLength[] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};

int Utf8Length(uint32_t cp) {
  if (cp <= 0x7F) return 1;
  if (cp <= 0x7FF) return 2;
  if (cp <= 0xFFFF) return 3;
  return 4;
}

void Encode(uint32_t cp, uint8_t* out) {
  int n = Utf8Length(cp);
  if (n == 1) {
    out[0] = static_cast<uint8_t>(cp);
    return;
  }
  static const uint8_t kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  for (int i = n - 1; i > 0; --i) {
    out[i] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    cp >>= 6;
  }
  out[0] = static_cast<uint8_t>(kLead[n] | cp);
}

// [lo, hi] with the same UTF-8 length n; split until each byte position is a full range.
void Split(uint32_t lo, uint32_t hi, int n, std::vector<std::vector<ByteRange>>& out) {
  if (n == 1) {
    out.push_back({{static_cast<uint8_t>(lo), static_cast<uint8_t>(hi)}});
    return;
  }
  // Try to split on continuation-byte boundaries: for i in 1..n-1, if lo and hi differ in the
  // prefix above the low 6*i bits, split so the suffix ranges are full.
  for (int i = 1; i < n; ++i) {
    uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        Split(lo, lo | m, n, out);
        Split((lo | m) + 1, hi, n, out);
        return;
      }
      if ((hi & m) != m) {
        Split(lo, (hi & ~m) - 1, n, out);
        Split(hi & ~m, hi, n, out);
        return;
      }
    }
  }
  uint8_t a[4], b[4];
  Encode(lo, a);
  Encode(hi, b);
  std::vector<ByteRange> seq;
  for (int i = 0; i < n; ++i) seq.push_back({a[i], b[i]});
  out.push_back(std::move(seq));
}

}  // namespace

std::vector<std::vector<ByteRange>> Utf8Sequences(uint32_t lo, uint32_t hi) {
  std::vector<std::vector<ByteRange>> out;
  hi = std::min<uint32_t>(hi, 0x10FFFF);
  // Remove surrogates.
  if (lo <= 0xDFFF && hi >= 0xD800) {
    if (lo < 0xD800) {
      auto a = Utf8Sequences(lo, 0xD7FF);
      out.insert(out.end(), a.begin(), a.end());
    }
    if (hi > 0xDFFF) {
      auto b = Utf8Sequences(0xE000, hi);
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  }
  uint32_t cur = lo;
  while (cur <= hi) {
    int n = Utf8Length(cur);
    uint32_t end = std::min(hi, kMaxForLength[n]);
    Split(cur, end, n, out);
    if (end == 0x10FFFF) break;
    cur = end + 1;
  }
  return out;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  uint8_t b[4];
  Encode(cp, b);
  out.append(reinterpret_cast<const char*>(b), static_cast<size_t>(Utf8Length(cp)));
}

int DecodeUtf8(const std::string& s, size_t i, uint32_t& cp) {
  auto c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + static_cast<size_t>(n) > s.size()) return 0;
  cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < n; ++k) {
    auto d = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace gemmad::constrain::internal
