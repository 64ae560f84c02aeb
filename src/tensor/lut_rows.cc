// kLut4R / kLut2R rows (see lut_rows.h).
#include "tensor/lut_rows.h"

#include "base/check.h"

namespace gemmad::tensor {

void WriteLutRow(const float* values, int value_bits, int bits, const uint8_t* u, int64_t cols, uint8_t* row) {
  GEMMAD_CHECK((bits == 4 || bits == 2) && value_bits >= 1 && value_bits <= bits, "WriteLutRow: {}-bit codes as {} bits",
               value_bits, bits);
  const int64_t group = LutGroupElements(bits);
  GEMMAD_CHECK(cols % group == 0, "WriteLutRow: {} columns (want a multiple of {})", cols, group);
  const int n = 1 << value_bits, mask = (1 << bits) - 1;
  for (int i = 0; i < kLutEntries; ++i) {
    const int code = i & mask;
    const float v = code < n ? values[code] : 0.0f;
    std::memcpy(row + static_cast<size_t>(i) * sizeof(float), &v, sizeof(float));
  }
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
