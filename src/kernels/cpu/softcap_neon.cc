// ARM NEON logit soft-capping, x <- cap * tanh(x / cap), 4 lanes at a time: the formula of
// softcap_avx2.cc (Cephes odd polynomial for |y| < 0.625, otherwise 1 - 2 / (exp(2|y|) + 1) with
// exp by range reduction, a degree-6 polynomial and 2^n from the exponent bits; |y| clamped at
// 10), so it meets the same parity tolerance; GeGLU (GeluTanhMulNeon) with the same tanh, and
// ExpShiftedNeon with its exp. The
// last n % 4 elements go through the same vector code in a zero-padded copy. Built only for aarch64; parity-tested under qemu-aarch64.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline float32x4_t Exp(float32x4_t x) {  // x in [0, 20]
  const float32x4_t ln2_hi = vdupq_n_f32(0.693359375f);
  const float32x4_t ln2_lo = vdupq_n_f32(-2.12194440e-4f);
  const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504088896341f)));
  float32x4_t r = vfmsq_f32(x, n, ln2_hi);  // x - n·ln2_hi
  r = vfmsq_f32(r, n, ln2_lo);
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
  p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
  const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23);
  return vmulq_f32(p, vreinterpretq_f32_s32(e));
}

inline float32x4_t Tanh(float32x4_t y) {
  const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(y), vdupq_n_u32(0x80000000u));
  const float32x4_t a = vminq_f32(vabsq_f32(y), vdupq_n_f32(10.0f));
  // Large branch: 1 - 2 / (e^{2a} + 1).
  const float32x4_t e = Exp(vaddq_f32(a, a));
  const float32x4_t big =
      vsubq_f32(vdupq_n_f32(1.0f), vdivq_f32(vdupq_n_f32(2.0f), vaddq_f32(e, vdupq_n_f32(1.0f))));
  // Small branch: a + a^3 P(a^2).
  const float32x4_t z = vmulq_f32(a, a);
  float32x4_t p = vdupq_n_f32(-5.70498872745e-3f);
  p = vfmaq_f32(vdupq_n_f32(2.06390887954e-2f), p, z);
  p = vfmaq_f32(vdupq_n_f32(-5.37397155531e-2f), p, z);
  p = vfmaq_f32(vdupq_n_f32(1.33314422036e-1f), p, z);
  p = vfmaq_f32(vdupq_n_f32(-3.33332819422e-1f), p, z);
  const float32x4_t small = vfmaq_f32(a, vmulq_f32(p, z), a);
  const uint32x4_t use_small = vcltq_f32(a, vdupq_n_f32(0.625f));
  const float32x4_t t = vbslq_f32(use_small, small, big);
  return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(t), sign));
}

}  // namespace

void SoftCapNeon(float* x, int64_t n, float cap) {
  const float32x4_t vcap = vdupq_n_f32(cap);
  const float32x4_t inv = vdupq_n_f32(1.0f / cap);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(x + i, vmulq_f32(Tanh(vmulq_f32(vld1q_f32(x + i), inv)), vcap));
  if (i < n) {
    float buf[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const auto rest = static_cast<size_t>(n - i);
    std::memcpy(buf, x + i, rest * sizeof(float));
    vst1q_f32(buf, vmulq_f32(Tanh(vmulq_f32(vld1q_f32(buf), inv)), vcap));
    std::memcpy(x + i, buf, rest * sizeof(float));
  }
}

namespace {
inline float32x4_t Gelu4(float32x4_t z, float32x4_t u) {
  const float32x4_t y = vmulq_f32(vdupq_n_f32(0.7978845608028654f),
                                  vfmaq_f32(z, vmulq_f32(vdupq_n_f32(0.044715f), z), vmulq_f32(z, z)));
  const float32x4_t g = vmulq_f32(vmulq_f32(vdupq_n_f32(0.5f), z), vaddq_f32(vdupq_n_f32(1.0f), Tanh(y)));
  return vmulq_f32(g, u);
}
}  // namespace

void GeluTanhMulNeon(const float* gate, const float* up, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(out + i, Gelu4(vld1q_f32(gate + i), vld1q_f32(up + i)));
  if (i < n) {
    float g[4] = {0.0f, 0.0f, 0.0f, 0.0f}, u[4] = {0.0f, 0.0f, 0.0f, 0.0f}, o[4];
    const auto rest = static_cast<size_t>(n - i);
    std::memcpy(g, gate + i, rest * sizeof(float));
    std::memcpy(u, up + i, rest * sizeof(float));
    vst1q_f32(o, Gelu4(vld1q_f32(g), vld1q_f32(u)));
    std::memcpy(out + i, o, rest * sizeof(float));
  }
}

// Exp's reduction and polynomial hold for any argument whose 2^n is a normal float; the argument
// is clamped at the floor and the lanes below it set to 0.
void ExpShiftedNeon(const float* x, int64_t n, float shift, float scale, float* out) {
  const float32x4_t vs = vdupq_n_f32(shift), vk = vdupq_n_f32(scale), floor = vdupq_n_f32(kExpShiftedFloor);
  const auto one = [&](float32x4_t v) {
    const float32x4_t y = vmulq_f32(vsubq_f32(v, vs), vk);
    const uint32x4_t keep = vcgeq_f32(y, floor);
    return vreinterpretq_f32_u32(vandq_u32(keep, vreinterpretq_u32_f32(Exp(vmaxq_f32(y, floor)))));
  };
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(out + i, one(vld1q_f32(x + i)));
  if (i < n) {
    float v[4] = {shift, shift, shift, shift}, o[4];
    const auto rest = static_cast<size_t>(n - i);
    std::memcpy(v, x + i, rest * sizeof(float));
    vst1q_f32(o, one(vld1q_f32(v)));
    std::memcpy(out + i, o, rest * sizeof(float));
  }
}

}  // namespace gemmad::kernels
