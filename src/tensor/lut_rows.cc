// kLut4R / kLut2R rows (see lut_rows.h).
#include "tensor/lut_rows.h"

#include <algorithm>
#include <cstdlib>
#include <cfloat>
#include <cmath>
#include <limits>

#include "base/check.h"

namespace gemmad::tensor {
namespace {

// values as n · unit for this unit, when exact and in range.
bool FitsUnit(const float* values, int count, float unit, LutTable* table) {
  if (!(std::isfinite(unit) && unit != 0.0f)) return false;
  for (int c = 0; c < count; ++c) {
    const float n = std::nearbyint(values[c] / unit);
    if (!(std::fabs(n) <= static_cast<float>(kLutMaxInt)) || n * unit != values[c]) return false;
    table->n[c] = static_cast<int16_t>(n);
  }
  table->unit = unit;
  return true;
}

}  // namespace

bool LutTableOf(const float* values, int count, float unit_hint, LutTable* table) {
  GEMMAD_CHECK(count >= 1 && count <= kLutEntries, "LutTableOf: {} values", count);
  *table = LutTable{};
  // The lowest set bit among the values' significands: every value is an integer multiple of it.
  int low = std::numeric_limits<int>::max();
  for (int c = 0; c < count; ++c) {
    if (!std::isfinite(values[c])) return false;
    if (values[c] == 0.0f) continue;
    int e = 0;
    const auto m = static_cast<int64_t>(std::ldexp(std::frexp(values[c], &e), 24));  // exact: 24 bits
    low = std::min(low, e - 24 + __builtin_ctzll(static_cast<unsigned long long>(m < 0 ? -m : m)));
  }
  if (low == std::numeric_limits<int>::max()) return true;  // all zero: n = 0, unit 1
  const float pow2 = std::ldexp(1.0f, low);
  if (pow2 >= FLT_MIN && FitsUnit(values, count, pow2, table)) return true;
  return FitsUnit(values, count, unit_hint, table);
}

void WriteLutHead(const LutTable& table, int value_bits, int bits, uint8_t* row) {
  GEMMAD_CHECK((bits == 4 || bits == 2) && value_bits >= 1 && value_bits <= bits,
               "WriteLutHead: {}-bit codes as {} bits", value_bits, bits);
  const int n = 1 << value_bits, mask = (1 << bits) - 1;
  std::memset(row, 0, kLutHeadBytes);
  for (int i = 0; i < kLutEntries; ++i) {
    const int code = i & mask;
    const int16_t v = code < n ? table.n[code] : int16_t{0};
    std::memcpy(row + static_cast<size_t>(i) * sizeof(int16_t), &v, sizeof(v));
  }
  std::memcpy(row + kLutUnitOffset, &table.unit, sizeof(table.unit));
  // The byte form: the line through the first and last values, the remainders where they fit a byte.
  LutByteForm f;
  const int64_t first = table.n[0], last = table.n[n - 1];
  f.a = static_cast<int32_t>(first);
  f.b = n > 1 ? static_cast<int32_t>(std::lround(static_cast<double>(last - first) / (n - 1))) : 0;
  bool fits = true, exact = true;
  for (int i = 0; i < kLutEntries; ++i) {
    const int code = i & mask;
    const int64_t e = code < n ? table.n[code] - first - int64_t{f.b} * code : 0;
    fits = fits && e >= -128 && e <= 127;
    exact = exact && e == 0;
    f.u[i] = static_cast<uint8_t>(std::clamp<int64_t>(e, -128, 127) + 128);
  }
  f.u_min = *std::min_element(f.u, f.u + kLutEntries);
  const bool narrow = fits && *std::max_element(f.u, f.u + kLutEntries) - f.u_min < 32;
  f.flags = static_cast<uint8_t>((fits ? LutByteForm::kResidual : 0) | (exact ? LutByteForm::kLinear : 0) |
                                 (narrow ? LutByteForm::kNarrow : 0));
  std::memcpy(row + kLutFormOffset, &f, sizeof(f));
}

void WriteLutRow(const LutTable& table, int value_bits, int bits, const uint8_t* u, int64_t cols, uint8_t* row) {
  WriteLutHead(table, value_bits, bits, row);
  const int64_t group = LutGroupElements(bits);
  GEMMAD_CHECK(cols % group == 0, "WriteLutRow: {} columns (want a multiple of {})", cols, group);
  const int n = 1 << value_bits;
  uint8_t* codes = row + kLutHeadBytes;
  for (int64_t g = 0; g < cols / group; ++g) {
    for (int j = 0; j < 16; ++j) {
      uint8_t c = 0;
      for (int h = 0; h < 8 / bits; ++h) {
        const uint8_t code = u[g * group + 16 * h + j];
        GEMMAD_CHECK(code < n, "WriteLutRow: code {} of {} bits", code, value_bits);
        c = static_cast<uint8_t>(c | (code << (bits * h)));
      }
      codes[16 * g + j] = c;
    }
  }
}

}  // namespace gemmad::tensor
