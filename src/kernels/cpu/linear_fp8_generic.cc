// FP8 Linear, portable: vLLM's per-token E4M3 activation quantization and the kF8R dot products
// (kernels/registry.h LinearF8Fn; tensor/quant_blocks.h kF8R).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/registry.h"
#include "tensor/dtype.h"
#include "tensor/fp8.h"

namespace gemmad::kernels {

void QuantizeActsF8(const float* x, int64_t n, int64_t in, float* xq, float* s) {
  for (int64_t t = 0; t < n; ++t) {
    const float* row = x + t * in;
    float amax = 0.0f;
    for (int64_t i = 0; i < in; ++i) amax = std::fmax(amax, std::fabs(row[i]));
    const float scale = std::fmax(amax / tensor::kE4M3Max, 1.0f / (tensor::kE4M3Max * 512.0f));
    s[t] = scale;
    for (int64_t i = 0; i < in; ++i) xq[t * in + i] = tensor::RoundToE4M3(row[i] / scale);
  }
}

void LinearF8RGeneric(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                      int64_t o_end, float* y, int64_t ldy) {
  const size_t stride = tensor::RowBytes(tensor::DType::kF8R, in);
  float lut[256];
  for (int c = 0; c < 256; ++c) lut[c] = tensor::E4M3ToFloat(static_cast<uint8_t>(c));
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    float d;
    std::memcpy(&d, row, sizeof(float));
    const uint8_t* q = row + sizeof(float);
    for (int64_t t = 0; t < n; ++t) {
      float acc = 0.0f;
      for (int64_t i = 0; i < in; ++i) acc += xq[t * in + i] * lut[q[i]];
      y[t * ldy + o] = acc * d * s[t];
    }
  }
}

}  // namespace gemmad::kernels
