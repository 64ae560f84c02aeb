// Portable Linear kernels for the ggml block types GGUF files store (tensor/ggml_blocks.h), read
// as they are: per output row the blocks are decoded to small integers plus one float scale per
// 16 elements and, for Q4_K, one float minimum per 32, then each 32-element activation block
// (int8 q, f32 d: QuantizeActs) meets them with exact int32 partial sums:
//   y[t, o] = Σ_b d[t, b] · (Σ_{h=0,1} s[o, 2b + h] · Σ_{j ∈ half h} q[t, j] · w[o, j] − m[o, b] · Σ_j q[t, j]).
// The decode follows ggml's dequantizers (spec gguf.md §4.2); the ISA tables may use faster code
// for the same contract (kernels/registry.h).
#include <cstring>

#include "kernels/cpu/ggml_decoded_rows.h"
#include "kernels/registry.h"
#include "tensor/dtype.h"
#include "tensor/half.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kB = 32;

using Decoded = internal::GgmlDecodedRow;

float F16At(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return tensor::F16ToFloat(h);
}

// Q8_0: {f16 d; int8 qs[32]} (34 bytes).
void DecodeQ8_0(const uint8_t* row, int64_t in, Decoded* out) {
  for (int64_t b = 0; b < in / kB; ++b) {
    const uint8_t* blk = row + b * 34;
    const float d = F16At(blk);
    std::memcpy(out->v.data() + b * kB, blk + 2, kB);
    out->scale[2 * b] = out->scale[2 * b + 1] = d;
  }
}

// Q5_0: {f16 d; uint8 qh[4]; uint8 qs[16]} (22 bytes); value j = (nibble | bit j of qh << 4) - 16.
void DecodeQ5_0(const uint8_t* row, int64_t in, Decoded* out) {
  for (int64_t b = 0; b < in / kB; ++b) {
    const uint8_t* blk = row + b * 22;
    const float d = F16At(blk);
    uint32_t qh;
    std::memcpy(&qh, blk + 2, 4);
    const uint8_t* qs = blk + 6;
    int8_t* v = out->v.data() + b * kB;
    for (int j = 0; j < 16; ++j) {
      v[j] = static_cast<int8_t>(((qs[j] & 15) | (((qh >> j) & 1) << 4)) - 16);
      v[j + 16] = static_cast<int8_t>(((qs[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - 16);
    }
    out->scale[2 * b] = out->scale[2 * b + 1] = d;
  }
}

// Q4_K: {f16 d; f16 dmin; uint8 scales[12]; uint8 qs[128]} (144 bytes per 256): sub-block k of 32
// is d·sc_k·q − dmin·m_k with 6-bit (sc, m) packed as in spec §4.2.
void DecodeQ4_K(const uint8_t* row, int64_t in, Decoded* out) {
  for (int64_t sb = 0; sb < in / 256; ++sb) {
    const uint8_t* blk = row + sb * 144;
    const float d = F16At(blk), dmin = F16At(blk + 2);
    const uint8_t* s = blk + 4;
    const uint8_t* qs = blk + 16;
    for (int k = 0; k < 8; ++k) {
      int sc, m;
      if (k < 4) {
        sc = s[k] & 63;
        m = s[k + 4] & 63;
      } else {
        sc = (s[k + 4] & 0xF) | ((s[k - 4] >> 6) << 4);
        m = (s[k + 4] >> 4) | ((s[k] >> 6) << 4);
      }
      const int64_t sub = sb * 8 + k;
      out->scale[2 * sub] = out->scale[2 * sub + 1] = d * static_cast<float>(sc);
      out->min[sub] = dmin * static_cast<float>(m);
      const uint8_t* q = qs + (k / 2) * 32;
      int8_t* v = out->v.data() + sub * kB;
      for (int j = 0; j < 32; ++j) v[j] = static_cast<int8_t>(k % 2 == 0 ? (q[j] & 15) : (q[j] >> 4));
    }
  }
}

// Q6_K: {uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d} (210 bytes per 256): sub-block of 16
// i is d·scales[i]·q, q = (4 low bits | 2 high bits << 4) − 32.
void DecodeQ6_K(const uint8_t* row, int64_t in, Decoded* out) {
  for (int64_t sb = 0; sb < in / 256; ++sb) {
    const uint8_t* blk = row + sb * 210;
    const uint8_t* ql = blk;
    const uint8_t* qh = blk + 128;
    const auto* sc = reinterpret_cast<const int8_t*>(blk + 192);
    const float d = F16At(blk + 208);
    int8_t* v = out->v.data() + sb * 256;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* l = ql + 64 * half;
      const uint8_t* h = qh + 32 * half;
      int8_t* y = v + 128 * half;
      for (int j = 0; j < 32; ++j) {
        y[j] = static_cast<int8_t>(((l[j] & 0xF) | (((h[j] >> 0) & 3) << 4)) - 32);
        y[j + 32] = static_cast<int8_t>(((l[j + 32] & 0xF) | (((h[j] >> 2) & 3) << 4)) - 32);
        y[j + 64] = static_cast<int8_t>(((l[j] >> 4) | (((h[j] >> 4) & 3) << 4)) - 32);
        y[j + 96] = static_cast<int8_t>(((l[j + 32] >> 4) | (((h[j] >> 6) & 3) << 4)) - 32);
      }
    }
    for (int i = 0; i < 16; ++i) out->scale[sb * 16 + i] = d * static_cast<float>(sc[i]);
  }
}

using DecodeFn = void (*)(const uint8_t*, int64_t, Decoded*);

int32_t Dot16(const int8_t* a, const int8_t* b) {
  int32_t s = 0;
  for (int j = 0; j < 16; ++j) s += a[j] * b[j];
  return s;
}

int32_t Sum32(const int8_t* a) {
  int32_t s = 0;
  for (int j = 0; j < 32; ++j) s += a[j];
  return s;
}

void Run(DecodeFn decode, tensor::DType type, const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
         int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  // Lambdas, not function pointers: each is its own type, so the sums inline into the row loop.
  internal::LinearGgmlDecodedRows(
      decode, [](const int8_t* a, const int8_t* b) { return Dot16(a, b); }, [](const int8_t* a) { return Sum32(a); },
      tensor::RowBytes(type, in), q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace

void LinearGgmlQ8_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ8_0, tensor::DType::kGgmlQ8_0, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ5_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ5_0, tensor::DType::kGgmlQ5_0, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ4_KGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ4_K, tensor::DType::kGgmlQ4_K, q, d, n, in, w, o_begin, o_end, y, ldy);
}
void LinearGgmlQ6_KGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy) {
  Run(&DecodeQ6_K, tensor::DType::kGgmlQ6_K, q, d, n, in, w, o_begin, o_end, y, ldy);
}

}  // namespace gemmad::kernels
