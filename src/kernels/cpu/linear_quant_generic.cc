// Portable quantized-Linear kernels (tensor/quant_blocks.h): activation quantization and the
// kQ8R / kQ4_0 dot products with exact int32 block sums. One accumulation order per output, so
// results are batch-invariant. The baseline the ISA tables are compared with.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/q4_layout.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"
#include "tensor/half.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels {
namespace {

using tensor::kQuantBlock;

inline int32_t BlockDotQ8(const int8_t* x, const int8_t* w) {
  int32_t s = 0;
  for (int64_t j = 0; j < kQuantBlock; ++j) s += static_cast<int32_t>(x[j]) * w[j];
  return s;
}

inline int32_t BlockDotQ4(const int8_t* x, const uint8_t* qs) {
  int32_t s = 0;
  for (int64_t j = 0; j < kQuantBlock / 2; ++j) {
    s += static_cast<int32_t>(x[j]) * ((qs[j] & 15) - 8);
    s += static_cast<int32_t>(x[j + kQuantBlock / 2]) * ((qs[j] >> 4) - 8);
  }
  return s;
}

}  // namespace

void QuantizeActsGeneric(const float* x, int64_t n, int64_t in, int8_t* q, float* d) {
  const int64_t nb = in / kQuantBlock;
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t b = 0; b < nb; ++b) {
      const float* xb = x + t * in + b * kQuantBlock;
      int8_t* qb = q + t * in + b * kQuantBlock;
      float amax = 0.0f;
      for (int64_t j = 0; j < kQuantBlock; ++j) amax = std::fmax(amax, std::fabs(xb[j]));
      const float scale = amax / 127.0f;
      const float inv = scale != 0.0f ? 1.0f / scale : 0.0f;
      for (int64_t j = 0; j < kQuantBlock; ++j) qb[j] = static_cast<int8_t>(std::nearbyint(xb[j] * inv));
      d[t * nb + b] = scale;
    }
  }
}

void QuantizeRowQ8RGeneric(const float* x, int64_t in, uint8_t* row) {
  float amax = 0.0f;
  for (int64_t i = 0; i < in; ++i) amax = std::max(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float inv = d != 0.0f ? 1.0f / d : 0.0f;
  std::memcpy(row, &d, sizeof(float));
  auto* q = reinterpret_cast<int8_t*>(row + sizeof(float));
  for (int64_t i = 0; i < in; ++i) q[i] = static_cast<int8_t>(std::clamp(std::nearbyint(x[i] * inv), -127.0f, 127.0f));
}

void QuantizeRowQ4_0Generic(const float* x, int64_t in, uint8_t* scale, uint8_t* qs, size_t stride) {
  for (int64_t b = 0; b < in / kQuantBlock; ++b) {
    const float* xb = x + b * kQuantBlock;
    float amax = 0.0f, m = 0.0f;  // m: the first element of largest magnitude, with its sign
    for (int64_t j = 0; j < kQuantBlock; ++j) {
      if (std::fabs(xb[j]) > amax) {
        amax = std::fabs(xb[j]);
        m = xb[j];
      }
    }
    const float d = m / -8.0f;
    const float inv = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t h = tensor::FloatToF16(d);
    uint8_t bytes[16];
    for (int64_t j = 0; j < kQuantBlock / 2; ++j) {
      const int lo = std::min(15, static_cast<int>(xb[j] * inv + 8.5f));
      const int hi = std::min(15, static_cast<int>(xb[j + kQuantBlock / 2] * inv + 8.5f));
      bytes[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
    std::memcpy(scale + static_cast<size_t>(b) * stride, &h, 2);
    std::memcpy(qs + static_cast<size_t>(b) * stride, bytes, 16);
  }
}

void LinearQ8RGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t /*out*/,
                      int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  const int64_t nb = in / kQuantBlock;
  const size_t stride = tensor::RowBytes(tensor::DType::kQ8R, in);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    float row_scale;
    std::memcpy(&row_scale, row, sizeof(float));
    const auto* qw = reinterpret_cast<const int8_t*>(row + sizeof(float));
    for (int64_t t = 0; t < n; ++t) {
      float acc = 0.0f;
      for (int64_t b = 0; b < nb; ++b) {
        acc += d[t * nb + b] * static_cast<float>(BlockDotQ8(q + t * in + b * kQuantBlock, qw + b * kQuantBlock));
      }
      y[t * ldy + o] = acc * row_scale;
    }
  }
}

void LinearQ4_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                       int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  internal::LinearQ4_0Rows([](const int8_t* x, const uint8_t* qs) { return BlockDotQ4(x, qs); }, q, d, n, in, w, out,
                           o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
