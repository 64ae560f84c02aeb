// Table-row Linear, portable (kernels/registry.h LinearLutFn; tensor/lut_rows.h kLut4R / kLut2R):
// each row's codes index its 16-entry table, the products summed in element order in fp32. Also
// the neon table's kernel (no vector version there yet).
#include "kernels/registry.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

template <int B>
void LinearLut(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end, float* y,
               int64_t ldy) {
  constexpr int64_t kGroup = tensor::LutGroupElements(B);
  const size_t stride = tensor::LutRowBytes(B, in);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    float lut[tensor::kLutEntries];
    for (int c = 0; c < tensor::kLutEntries; ++c) lut[c] = tensor::LutRowEntry(row, c);
    const uint8_t* codes = row + tensor::kLutHeadBytes;
    for (int64_t t = 0; t < n; ++t) {
      const float* xt = x + t * in;
      float acc = 0.0f;
      for (int64_t g = 0; g < in / kGroup; ++g) {
        for (int h = 0; h < 8 / B; ++h) {
          for (int j = 0; j < 16; ++j) acc += xt[g * kGroup + 16 * h + j] * lut[(codes[16 * g + j] >> (B * h)) & 15];
        }
      }
      y[t * ldy + o] = acc;
    }
  }
}

}  // namespace

void LinearLut4RGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                        float* y, int64_t ldy) {
  LinearLut<4>(x, n, in, w, o_begin, o_end, y, ldy);
}

void LinearLut2RGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                        float* y, int64_t ldy) {
  LinearLut<2>(x, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
