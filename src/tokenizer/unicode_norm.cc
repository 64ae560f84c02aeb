// Decompose (table lookup, Hangul arithmetic), reorder by combining class, recompose (for the
// C/KC forms). Lookup structures are built once from the generated arrays.
#include "tokenizer/unicode_norm.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tokenizer/unicode.h"
#include "tokenizer/unicode_data.h"

namespace gemmad::tokenizer::unicode {
namespace {

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount;
constexpr int kSCount = kLCount * kNCount;

struct Tables {
  // cp -> offset of its record (cp, n, c...) in the canonical / compat arrays.
  std::unordered_map<char32_t, uint32_t> canonical, compat;
  std::unordered_map<uint64_t, char32_t> compose;  // (first << 32 | second) -> composite
};

const Tables& GetTables() {
  static const Tables* const t = [] {
    auto* tables = new Tables();
    auto index = [](const uint32_t* data, int count, std::unordered_map<char32_t, uint32_t>* out) {
      out->reserve(count * 2);
      uint32_t off = 0;
      for (int i = 0; i < count; ++i) {
        (*out)[data[off]] = off;
        off += 2 + data[off + 1];
      }
    };
    index(unicode_data::kCanonicalDecomp, unicode_data::kNumCanonicalDecomp, &tables->canonical);
    index(unicode_data::kCompatDecomp, unicode_data::kNumCompatDecomp, &tables->compat);
    tables->compose.reserve(unicode_data::kNumCompositions * 2);
    for (int i = 0; i < unicode_data::kNumCompositions; ++i) {
      const uint32_t* c = unicode_data::kCompositions + 3 * i;
      tables->compose[(static_cast<uint64_t>(c[0]) << 32) | c[1]] = c[2];
    }
    return tables;
  }();
  return *t;
}

uint8_t CombiningClass(char32_t cp) {
  if (cp < 0x300) return 0;
  int lo = 0, hi = unicode_data::kNumCccRanges - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const uint32_t* r = unicode_data::kCccRanges + 3 * mid;
    if (cp < r[0]) {
      hi = mid - 1;
    } else if (cp > r[1]) {
      lo = mid + 1;
    } else {
      return static_cast<uint8_t>(r[2]);
    }
  }
  return 0;
}

void Decompose(char32_t cp, bool compat, const Tables& t, std::vector<char32_t>* out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    int s = static_cast<int>(cp - kSBase);
    out->push_back(kLBase + s / kNCount);
    out->push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount != 0) out->push_back(kTBase + s % kTCount);
    return;
  }
  if (cp < 0xA0) {
    out->push_back(cp);
    return;
  }
  const uint32_t* data = nullptr;
  uint32_t off = 0;
  if (compat) {
    if (auto it = t.compat.find(cp); it != t.compat.end()) data = unicode_data::kCompatDecomp, off = it->second;
  }
  if (data == nullptr) {
    if (auto it = t.canonical.find(cp); it != t.canonical.end()) data = unicode_data::kCanonicalDecomp, off = it->second;
  }
  if (data == nullptr) {
    out->push_back(cp);
    return;
  }
  for (uint32_t k = 0; k < data[off + 1]; ++k) out->push_back(data[off + 2 + k]);
}

// Stable sort of each run of non-starters by combining class (canonical ordering).
void Reorder(std::vector<char32_t>* cps) {
  auto& v = *cps;
  size_t i = 0;
  while (i < v.size()) {
    if (CombiningClass(v[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < v.size() && CombiningClass(v[j]) != 0) ++j;
    if (j - i > 1) {
      std::stable_sort(v.begin() + i, v.begin() + j,
                       [](char32_t a, char32_t b) { return CombiningClass(a) < CombiningClass(b); });
    }
    i = j;
  }
}

char32_t ComposePair(char32_t a, char32_t b, const Tables& t) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount) {
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  }
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount) {
    return a + (b - kTBase);
  }
  auto it = t.compose.find((static_cast<uint64_t>(a) << 32) | b);
  return it == t.compose.end() ? 0 : it->second;
}

void Compose(std::vector<char32_t>* cps, const Tables& t) {
  auto& v = *cps;
  size_t starter = SIZE_MAX, out = 0;
  int last_ccc = 0;  // combining class of the last character kept after the starter
  for (size_t i = 0; i < v.size(); ++i) {
    const char32_t c = v[i];
    const int ccc = CombiningClass(c);
    // c is not blocked from the starter when it is adjacent to it, or when every character
    // in between is a non-starter of a lower class (only the last one matters: sorted run).
    if (starter != SIZE_MAX && (out == starter + 1 || last_ccc < ccc)) {
      if (char32_t comp = ComposePair(v[starter], c, t); comp != 0) {
        v[starter] = comp;
        continue;
      }
    }
    if (ccc == 0) starter = out;
    last_ccc = ccc;
    v[out++] = c;
  }
  v.resize(out);
}

}  // namespace

std::string Normalize(std::string_view s, NormalForm form) {
  // Fast path: ASCII is invariant under every form.
  bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) return std::string(s);
  const Tables& t = GetTables();
  const bool compat = form == NormalForm::kNFKC || form == NormalForm::kNFKD;
  std::vector<char32_t> cps;
  cps.reserve(s.size());
  size_t pos = 0;
  while (pos < s.size()) Decompose(DecodeUtf8(s, &pos), compat, t, &cps);
  Reorder(&cps);
  if (form == NormalForm::kNFC || form == NormalForm::kNFKC) Compose(&cps, t);
  std::string out;
  out.reserve(s.size());
  for (char32_t c : cps) AppendUtf8(c, &out);
  return out;
}

}  // namespace gemmad::tokenizer::unicode
