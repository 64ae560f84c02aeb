// ARM NEON (AArch64 Advanced SIMD, always present there) linear kernels: the AVX2 kernel's
// structure at 4 lanes per FMA, eight elements per step in two accumulators per dot product.
// Four tokens share each weight load (4x2 tiles), a lone token runs four rows at once (1x4),
// rows are walked in L2-sized blocks, bf16 is widened by a 16-bit shift (vshll_n_u16). This file
// is built only for aarch64 (kernels/cpu/*_neon.cc); it is parity-tested under qemu-aarch64.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

// Eight consecutive weights (or activations) as two fp32 vectors.
struct F8 {
  float32x4_t lo, hi;
};
inline F8 Load8(const float* p) { return {vld1q_f32(p), vld1q_f32(p + 4)}; }
inline F8 Load8(const uint16_t* p) {
  const uint16x8_t h = vld1q_u16(p);
  return {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)),
          vreinterpretq_f32_u32(vshll_high_n_u16(h, 16))};
}
inline float Widen(float w) { return w; }
inline float Widen(uint16_t w) {
  const uint32_t bits = static_cast<uint32_t>(w) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One dot product's running sums: lanes of two accumulators (elements i % 8 < 4 and >= 4).
struct Acc {
  float32x4_t lo = vdupq_n_f32(0.0f), hi = vdupq_n_f32(0.0f);
  void Fma(const F8& x, const F8& w) {
    lo = vfmaq_f32(lo, x.lo, w.lo);
    hi = vfmaq_f32(hi, x.hi, w.hi);
  }
};

// The one reduction formula of every tile (batch-invariant results): s = lo + hi lane-wise, then
// (s0+s1)+(s2+s3), then the scalar tail (in % 8 elements) added in order.
inline float Reduce(const Acc& a) {
  const float32x4_t s = vaddq_f32(a.lo, a.hi);
  return vpadds_f32(vpadd_f32(vget_low_f32(s), vget_high_f32(s)));
}
template <typename W>
inline float Tail(const float* x, const W* wr, int64_t from, int64_t in) {
  float s = 0.0f;
  for (int64_t j = from; j < in; ++j) s += x[j] * Widen(wr[j]);
  return s;
}

// One token against four weight rows: eight independent FMA chains.
template <typename W>
inline void Dot1x4(const float* x, int64_t in, const W* const* w, float* out) {
  Acc a[4];
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    const F8 xv = Load8(x + i);
    for (int r = 0; r < 4; ++r) a[r].Fma(xv, Load8(w[r] + i));
  }
  for (int r = 0; r < 4; ++r) out[r] = Reduce(a[r]) + Tail(x, w[r], i, in);
}

// Four tokens against two weight rows: sixteen chains, each weight vector widened once for four
// tokens. out[k * 2 + r] = token k · row r.
template <typename W>
inline void Dot4x2(const float* x, int64_t in, const W* w0, const W* w1, float* out) {
  Acc a[8];
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    const F8 v0 = Load8(w0 + i), v1 = Load8(w1 + i);
    for (int k = 0; k < 4; ++k) {
      const F8 xv = Load8(x + k * in + i);
      a[k * 2].Fma(xv, v0);
      a[k * 2 + 1].Fma(xv, v1);
    }
  }
  for (int k = 0; k < 4; ++k) {
    out[k * 2] = Reduce(a[k * 2]) + Tail(x + k * in, w0, i, in);
    out[k * 2 + 1] = Reduce(a[k * 2 + 1]) + Tail(x + k * in, w1, i, in);
  }
}

// One token against one row (leftover rows).
template <typename W>
inline float Dot1x1(const float* x, int64_t in, const W* wr) {
  Acc a;
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) a.Fma(Load8(x + i), Load8(wr + i));
  return Reduce(a) + Tail(x, wr, i, in);
}

template <typename W>
void LinearNeon(const float* x, int64_t n, int64_t in, const W* w, int64_t o_begin, int64_t o_end,
                float* y, int64_t ldy) {
  // As in linear_avx2.cc: tokens in groups of four share each weight load (rows in pairs), the
  // remaining 0-3 tokens take rows in fours, and a row block's weights stay in L2 between the
  // token groups.
  const int64_t by_l2 = (int64_t{128} << 10) / (in * static_cast<int64_t>(sizeof(W)));
  const int64_t row_block = by_l2 < 2 ? 2 : by_l2;
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const float* xt = x + t * in;
      int64_t o = ob;
      float r[8];
      for (; o + 2 <= oe; o += 2) {
        Dot4x2(xt, in, w + o * in, w + (o + 1) * in, r);
        for (int k = 0; k < 4; ++k) {
          y[(t + k) * ldy + o] = r[k * 2];
          y[(t + k) * ldy + o + 1] = r[k * 2 + 1];
        }
      }
      for (; o < oe; ++o) {
        for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = Dot1x1(xt + k * in, in, w + o * in);
      }
    }
    for (; t < n; ++t) {
      const float* xt = x + t * in;
      int64_t o = ob;
      for (; o + 4 <= oe; o += 4) {
        const W* rows[4] = {w + o * in, w + (o + 1) * in, w + (o + 2) * in, w + (o + 3) * in};
        Dot1x4(xt, in, rows, y + t * ldy + o);
      }
      for (; o < oe; ++o) y[t * ldy + o] = Dot1x1(xt, in, w + o * in);
    }
  }
}

void LinearF32Neon(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin, int64_t o_end,
                   float* y, int64_t ldy) {
  LinearNeon(x, n, in, w, o_begin, o_end, y, ldy);
}
void LinearBf16Neon(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                    int64_t o_end, float* y, int64_t ldy) {
  LinearNeon(x, n, in, w, o_begin, o_end, y, ldy);
}
bool NeonSupported() { return true; }  // Advanced SIMD is mandatory in AArch64

}  // namespace

const CpuKernelTable* NeonCpuKernels() {
  // Quantized Linear: the portable kernels for now (no NEON int8 dot-product kernels yet).
  static const CpuKernelTable table{.name = "neon",
                                     .supported = &NeonSupported,
                                     .linear_f32 = &LinearF32Neon,
                                     .linear_bf16 = &LinearBf16Neon,
                                     .softcap = &SoftCapNeon,
                                     .quantize_int8 = &QuantizeInt8Generic,
                                     .fake_quant_int8 = &FakeQuantInt8Generic,
                                     .quantize_acts = &QuantizeActsGeneric,
                                     .linear_q8r = &LinearQ8RGeneric,
                                     .linear_q4_0 = &LinearQ4_0Neon,
                                     .linear_q4_0x16 = nullptr,
                                     .linear_ggml_q8_0 = &LinearGgmlQ8_0Neon,
                                     .linear_ggml_q5_0 = &LinearGgmlQ5_0Neon,
                                     .linear_ggml_q4_k = &LinearGgmlQ4_KNeon,
                                     .linear_ggml_q6_k = &LinearGgmlQ6_KNeon,
                                     .linear_f8r = &LinearF8RGeneric,
                                     .linear_lut4r = &LinearLut4RGeneric,
                                     .linear_lut2r = &LinearLut2RGeneric,
                                     .linear_i8br = &LinearI8BRGeneric,
                                     .linear_lut4r_int = nullptr,
                                     .linear_lut2r_int = nullptr,
                                     .quantize_row_q8r = &QuantizeRowQ8RGeneric,
                                     .quantize_row_q4_0 = &QuantizeRowQ4_0Generic,
                                     .gelu_tanh_mul = &GeluTanhMulNeon,
                                     .exp_shifted = &ExpShiftedNeon,
                                     .gemm_f32 = &GemmF32Generic};
  return &table;
}

}  // namespace gemmad::kernels
