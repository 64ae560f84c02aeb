// Portable linear kernels: four tokens share each weight row load, four partial sums per dot
// (in every path: batch-invariant) so the compiler can vectorise. The baseline every ISA table is compared with.
#include <cmath>
#include <cstdint>

#include "kernels/registry.h"
#include "tensor/half.h"

namespace gemmad::kernels {
namespace {

template <typename W>
inline float Widen(W w) {
  if constexpr (sizeof(W) == 2) {
    return tensor::Bf16ToFloat(w);
  } else {
    return w;
  }
}

template <typename W>
void LinearGeneric(const float* x, int64_t n, int64_t in, const W* w, int64_t o_begin, int64_t o_end,
                   float* y, int64_t ldy) {
  for (int64_t o = o_begin; o < o_end; ++o) {
    const W* wr = w + o * in;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      // The same four partial sums per dot as the single-token loop below, so a token's result
      // does not depend on the batch it came in (LinearIsBatchInvariant).
      const float* x0 = x + t * in;
      float p[4][4] = {};
      int64_t i = 0;
      for (; i + 4 <= in; i += 4) {
        float wv[4];
        for (int k = 0; k < 4; ++k) wv[k] = Widen(wr[i + k]);
        for (int tk = 0; tk < 4; ++tk) {
          for (int k = 0; k < 4; ++k) p[tk][k] += x0[tk * in + i + k] * wv[k];
        }
      }
      for (; i < in; ++i) {
        const float wv = Widen(wr[i]);
        for (int tk = 0; tk < 4; ++tk) p[tk][0] += x0[tk * in + i] * wv;
      }
      for (int tk = 0; tk < 4; ++tk) y[(t + tk) * ldy + o] = (p[tk][0] + p[tk][1]) + (p[tk][2] + p[tk][3]);
    }
    for (; t < n; ++t) {
      const float* xr = x + t * in;
      float p[4] = {0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 4 <= in; i += 4) {
        for (int k = 0; k < 4; ++k) p[k] += xr[i + k] * Widen(wr[i + k]);
      }
      for (; i < in; ++i) p[0] += xr[i] * Widen(wr[i]);
      y[t * ldy + o] = (p[0] + p[1]) + (p[2] + p[3]);
    }
  }
}

void LinearF32Generic(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin,
                      int64_t o_end, float* y, int64_t ldy) {
  LinearGeneric(x, n, in, w, o_begin, o_end, y, ldy);
}
void LinearBf16Generic(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                       int64_t o_end, float* y, int64_t ldy) {
  LinearGeneric(x, n, in, w, o_begin, o_end, y, ldy);
}
void SoftCapGeneric(float* x, int64_t n, float cap) {
  for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] / cap) * cap;
}
void GeluTanhMulGeneric(const float* gate, const float* up, float* out, int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (int64_t i = 0; i < n; ++i) {
    const float z = gate[i];
    out[i] = 0.5f * z * (1.0f + std::tanh(kSqrt2OverPi * (z + 0.044715f * z * z * z))) * up[i];
  }
}
void ExpShiftedGeneric(const float* x, int64_t n, float shift, float scale, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float y = (x[i] - shift) * scale;
    out[i] = y < kExpShiftedFloor ? 0.0f : std::exp(y);
  }
}
bool AlwaysSupported() { return true; }

}  // namespace

const CpuKernelTable& GenericCpuKernels() {
  static const CpuKernelTable table{.name = "generic",
                                     .supported = &AlwaysSupported,
                                     .linear_f32 = &LinearF32Generic,
                                     .linear_bf16 = &LinearBf16Generic,
                                     .softcap = &SoftCapGeneric,
                                     .quantize_int8 = &QuantizeInt8Generic,
                                     .fake_quant_int8 = &FakeQuantInt8Generic,
                                     .quantize_acts = &QuantizeActsGeneric,
                                     .linear_q8r = &LinearQ8RGeneric,
                                     .linear_q4_0 = &LinearQ4_0Generic,
                                     .linear_q4_0x16 = nullptr,
                                     .linear_ggml_q8_0 = &LinearGgmlQ8_0Generic,
                                     .linear_ggml_q5_0 = &LinearGgmlQ5_0Generic,
                                     .linear_ggml_q4_k = &LinearGgmlQ4_KGeneric,
                                     .linear_ggml_q6_k = &LinearGgmlQ6_KGeneric,
                                     .linear_f8r = &LinearF8RGeneric,
                                     .linear_lut4r = &LinearLut4RGeneric,
                                     .linear_lut2r = &LinearLut2RGeneric,
                                     .linear_i8br = &LinearI8BRGeneric,
                                     .linear_lut4r_int = nullptr,
                                     .linear_lut2r_int = nullptr,
                                     .quantize_row_q8r = &QuantizeRowQ8RGeneric,
                                     .quantize_row_q4_0 = &QuantizeRowQ4_0Generic,
                                     .gelu_tanh_mul = &GeluTanhMulGeneric,
                                     .exp_shifted = &ExpShiftedGeneric,
                                     .gemm_f32 = &GemmF32Generic};
  return table;
}

}  // namespace gemmad::kernels
