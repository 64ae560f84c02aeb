// ARM NEON Linear for the ggml block types GGUF files store (Q8_0, Q5_0, Q4_K, Q6_K), read in
// place. The contract and the arithmetic are the portable kernels' (linear_ggml_generic.cc): per
// output row the blocks are decoded once into int8 values, a float scale per 16 elements and, for
// Q4_K, a float minimum per 32; then each 32-element activation block (int8 q, f32 d) meets them
// with exact int32 partial sums per 16-element half, combined in the same float expression and the
// same order (the row loop is theirs: ggml_decoded_rows.h). The decode runs 16 bytes per step
// (nibble masks and shifts, the Q5_0 fifth bits by a bit test against a byte mask, the Q6_K two
// high bits shifted into place) and the integer sums by widening multiplies (VMULL.S8, each product
// fits int16) pairwise-added into int32 lanes, so the outputs equal the portable kernels' bit for
// bit. Baseline AArch64 Advanced SIMD only (no dot-product extension). Built only for aarch64
// (kernels/cpu/*_neon.cc); parity-tested under qemu-aarch64, which says nothing about speed: there
// are no ARM figures for it.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "kernels/cpu/ggml_decoded_rows.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"
#include "tensor/half.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kB = 32;

using Decoded = internal::GgmlDecodedRow;

inline float F16At(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return tensor::F16ToFloat(h);
}

// Σ a[j]·b[j] over 16 int8 pairs, exact.
inline int32_t Dot16(const int8_t* a, const int8_t* b) {
  const int8x16_t x = vld1q_s8(a), y = vld1q_s8(b);
  int32x4_t acc = vpaddlq_s16(vmull_s8(vget_low_s8(x), vget_low_s8(y)));
  acc = vpadalq_s16(acc, vmull_high_s8(x, y));
  return vaddvq_s32(acc);
}

// Σ a[j] over 32 int8, exact.
inline int32_t Sum32(const int8_t* a) {
  return static_cast<int32_t>(vaddlvq_s8(vld1q_s8(a))) + static_cast<int32_t>(vaddlvq_s8(vld1q_s8(a + 16)));
}

// Q8_0: {f16 d; int8 qs[32]} (34 bytes).
void DecodeQ8_0(const uint8_t* row, int64_t in, Decoded* out) {
  for (int64_t b = 0; b < in / kB; ++b) {
    const uint8_t* blk = row + b * 34;
    const float d = F16At(blk);
    vst1q_s8(out->v.data() + b * kB, vld1q_s8(reinterpret_cast<const int8_t*>(blk + 2)));
    vst1q_s8(out->v.data() + b * kB + 16, vld1q_s8(reinterpret_cast<const int8_t*>(blk + 18)));
    out->scale[static_cast<size_t>(2 * b)] = out->scale[static_cast<size_t>(2 * b + 1)] = d;
  }
}

// Q5_0: {f16 d; uint8 qh[4]; uint8 qs[16]} (22 bytes); value j = (nibble | bit j of qh << 4) - 16.
void DecodeQ5_0(const uint8_t* row, int64_t in, Decoded* out) {
  const uint8x16_t bit = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  const uint8x16_t fifth = vdupq_n_u8(16);
  for (int64_t b = 0; b < in / kB; ++b) {
    const uint8_t* blk = row + b * 22;
    const float d = F16At(blk);
    const uint8_t* qh = blk + 2;
    const uint8x16_t qs = vld1q_u8(blk + 6);
    // Elements 0..15 take qh bits 0..15 (bytes 0, 1), elements 16..31 bits 16..31 (bytes 2, 3).
    const uint8x16_t h_lo = vandq_u8(vtstq_u8(vcombine_u8(vdup_n_u8(qh[0]), vdup_n_u8(qh[1])), bit), fifth);
    const uint8x16_t h_hi = vandq_u8(vtstq_u8(vcombine_u8(vdup_n_u8(qh[2]), vdup_n_u8(qh[3])), bit), fifth);
    const uint8x16_t lo = vorrq_u8(vandq_u8(qs, vdupq_n_u8(15)), h_lo);
    const uint8x16_t hi = vorrq_u8(vshrq_n_u8(qs, 4), h_hi);
    int8_t* v = out->v.data() + b * kB;
    vst1q_s8(v, vsubq_s8(vreinterpretq_s8_u8(lo), vdupq_n_s8(16)));
    vst1q_s8(v + 16, vsubq_s8(vreinterpretq_s8_u8(hi), vdupq_n_s8(16)));
    out->scale[static_cast<size_t>(2 * b)] = out->scale[static_cast<size_t>(2 * b + 1)] = d;
  }
}

// Q4_K: {f16 d; f16 dmin; uint8 scales[12]; uint8 qs[128]} (144 bytes per 256): sub-block k of 32
// is d·sc_k·q − dmin·m_k, q the low (k even) or high (k odd) nibbles of qs[32·(k/2) ..].
void DecodeQ4_K(const uint8_t* row, int64_t in, Decoded* out) {
  const uint8x16_t low4 = vdupq_n_u8(15);
  for (int64_t sb = 0; sb < in / 256; ++sb) {
    const uint8_t* blk = row + sb * 144;
    const float d = F16At(blk), dmin = F16At(blk + 2);
    const uint8_t* s = blk + 4;
    for (int k = 0; k < 8; ++k) {
      const int sc = k < 4 ? (s[k] & 63) : ((s[k + 4] & 0xF) | ((s[k - 4] >> 6) << 4));
      const int m = k < 4 ? (s[k + 4] & 63) : ((s[k + 4] >> 4) | ((s[k] >> 6) << 4));
      const int64_t sub = sb * 8 + k;
      out->scale[static_cast<size_t>(2 * sub)] = out->scale[static_cast<size_t>(2 * sub + 1)] =
          d * static_cast<float>(sc);
      out->min[static_cast<size_t>(sub)] = dmin * static_cast<float>(m);
    }
    for (int pair = 0; pair < 4; ++pair) {
      const uint8_t* q = blk + 16 + 32 * pair;
      int8_t* v = out->v.data() + sb * 256 + pair * 64;
      for (int h = 0; h < 2; ++h) {
        const uint8x16_t x = vld1q_u8(q + 16 * h);
        vst1q_s8(v + 16 * h, vreinterpretq_s8_u8(vandq_u8(x, low4)));
        vst1q_s8(v + 32 + 16 * h, vreinterpretq_s8_u8(vshrq_n_u8(x, 4)));
      }
    }
  }
}

// Q6_K: {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d} (210 bytes per 256): sub-block of 16
// i is d·scales[i]·q, q = (4 low bits | 2 high bits << 4) − 32.
void DecodeQ6_K(const uint8_t* row, int64_t in, Decoded* out) {
  const uint8x16_t low4 = vdupq_n_u8(15), two = vdupq_n_u8(0x30);
  const int8x16_t off = vdupq_n_s8(32);
  auto put = [&](int8_t* dst, uint8x16_t low, uint8x16_t high2) {
    vst1q_s8(dst, vsubq_s8(vreinterpretq_s8_u8(vorrq_u8(low, vandq_u8(high2, two))), off));
  };
  for (int64_t sb = 0; sb < in / 256; ++sb) {
    const uint8_t* blk = row + sb * 210;
    const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
    const float d = F16At(blk + 208);
    int8_t* v = out->v.data() + sb * 256;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* l = blk + 64 * half;
      const uint8_t* h = blk + 128 + 32 * half;
      int8_t* y = v + 128 * half;
      for (int j = 0; j < 32; j += 16) {
        const uint8x16_t l0 = vld1q_u8(l + j), l1 = vld1q_u8(l + j + 32), hb = vld1q_u8(h + j);
        put(y + j, vandq_u8(l0, low4), vshlq_n_u8(hb, 4));
        put(y + j + 32, vandq_u8(l1, low4), vshlq_n_u8(hb, 2));
        put(y + j + 64, vshrq_n_u8(l0, 4), hb);
        put(y + j + 96, vshrq_n_u8(l1, 4), vshrq_n_u8(hb, 2));
      }
    }
    for (int i = 0; i < 16; ++i) out->scale[static_cast<size_t>(sb * 16 + i)] = d * static_cast<float>(sc[i]);
  }
}

using DecodeFn = void (*)(const uint8_t*, int64_t, Decoded*);

void Run(DecodeFn decode, tensor::DType type, const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
         int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  // Lambdas, not function pointers: each is its own type, so the sums inline into the row loop.
  internal::LinearGgmlDecodedRows(
      decode, [](const int8_t* a, const int8_t* b) { return Dot16(a, b); }, [](const int8_t* a) { return Sum32(a); },
      tensor::RowBytes(type, in), q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace

void LinearGgmlQ8_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ8_0, tensor::DType::kGgmlQ8_0, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ5_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ5_0, tensor::DType::kGgmlQ5_0, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ4_KNeon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ4_K, tensor::DType::kGgmlQ4_K, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ6_KNeon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ6_K, tensor::DType::kGgmlQ6_K, q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
