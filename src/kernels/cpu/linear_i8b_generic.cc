// kI8BR Linear, portable (kernels/registry.h LinearLutFn; tensor/i8b_rows.h): each weight
// bf16(q · s) as the reference rounds it, the products summed in element order in fp32. Also the
// neon table's kernel (no vector version there yet).
#include "kernels/registry.h"
#include "tensor/i8b_rows.h"

namespace gemmad::kernels {

void LinearI8BRGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy) {
  const size_t stride = tensor::kI8BHeadBytes + static_cast<size_t>(in);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const uint8_t* row = w + static_cast<size_t>(o) * stride;
    for (int64_t t = 0; t < n; ++t) {
      const float* xt = x + t * in;
      float acc = 0.0f;
      for (int64_t i = 0; i < in; ++i) acc += xt[i] * tensor::I8BRowElement(row, i);
      y[t * ldy + o] = acc;
    }
  }
}

}  // namespace gemmad::kernels
