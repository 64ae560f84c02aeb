// Scalar ggml dequantizers, one per type, in gguf-py's (numpy float32) order of operations; see the
// header. Index conventions follow spec gguf.md §4.2 (nibble t of byte j = (b >> 4t) & 15).
#include "tensor/ggml_quants.h"

#include <bit>
#include <cstring>
#include <string>

#include "tensor/ggml_blocks.h"
#include "tensor/ggml_types.h"
#include "tensor/half.h"

namespace gemmad::tensor {
namespace {

static_assert(std::endian::native == std::endian::little, "ggml blocks are read with memcpy");

// IQ4_NL / IQ4_XS non-linear table and MXFP4's doubled E2M1 values.
constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
constexpr int8_t kMxfp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

template <typename Block>
Block LoadBlock(const uint8_t* src, int64_t i) {
  Block b;
  std::memcpy(&b, src + i * static_cast<int64_t>(sizeof(Block)), sizeof(Block));
  return b;
}

inline int Nibble(uint8_t b, int t) { return (b >> (4 * t)) & 15; }

// y = (d * q) + m (numpy's `(d * qs) + m`; d * q is exact).
inline float Affine(float d, float q, float m) {
  float p = d * q;
  return p + m;
}

// y = (dl * q) - ml (the k-quants' `d * q - dm`; dl * q is exact).
inline float AffineSub(float dl, float q, float ml) {
  float p = dl * q;
  return p - ml;
}

void DequantF32(const uint8_t* src, int64_t n, float* y) { std::memcpy(y, src, static_cast<size_t>(n) * 4); }

void DequantF16(const uint8_t* src, int64_t n, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = F16ToFloat(LoadBlock<uint16_t>(src, i));
}

void DequantBf16(const uint8_t* src, int64_t n, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = Bf16ToFloat(LoadBlock<uint16_t>(src, i));
}

void DequantQ4_0(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockQ4_0>(src, i);
    float d = F16ToFloat(b.d);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(Nibble(b.qs[j % 16], j / 16) - 8);
  }
}

void DequantQ4_1(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockQ4_1>(src, i);
    float d = F16ToFloat(b.d), m = F16ToFloat(b.m);
    for (int j = 0; j < 32; ++j) y[j] = Affine(d, static_cast<float>(Nibble(b.qs[j % 16], j / 16)), m);
  }
}

// The 5-bit value of element j of a Q5_0/Q5_1 block.
inline int Q5Value(const uint8_t* qh, const uint8_t* qs, int j) {
  uint32_t h;
  std::memcpy(&h, qh, 4);
  return Nibble(qs[j % 16], j / 16) | static_cast<int>((h >> j) & 1u) << 4;
}

void DequantQ5_0(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockQ5_0>(src, i);
    float d = F16ToFloat(b.d);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(Q5Value(b.qh, b.qs, j) - 16);
  }
}

void DequantQ5_1(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockQ5_1>(src, i);
    float d = F16ToFloat(b.d), m = F16ToFloat(b.m);
    for (int j = 0; j < 32; ++j) y[j] = Affine(d, static_cast<float>(Q5Value(b.qh, b.qs, j)), m);
  }
}

void DequantQ8_0(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockQ8_0>(src, i);
    float d = F16ToFloat(b.d);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(b.qs[j]) * d;
  }
}

// Q2_K: output o = 128h + 32p + j takes bits 2p..2p+1 of qs[32h + j]; sub-block o / 16.
void DequantQ2_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ2_K>(src, i);
    float d = F16ToFloat(b.d), dmin = F16ToFloat(b.dmin);
    for (int o = 0; o < 256; ++o) {
      int h = o / 128, p = (o / 32) % 4, j = o % 32;
      uint8_t sc = b.scales[o / 16];
      float dl = d * static_cast<float>(sc & 15);
      float ml = dmin * static_cast<float>(sc >> 4);
      float q = static_cast<float>((b.qs[32 * h + j] >> (2 * p)) & 3);
      y[o] = AffineSub(dl, q, ml);
    }
  }
}

// Q3_K: as Q2_K for the low bits; the high bit is bit 4h + p of hmask[j] (clear: subtract 4).
void DequantQ3_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ3_K>(src, i);
    float d = F16ToFloat(b.d);
    float dl[16];
    for (int s = 0; s < 16; ++s) {
      int low4 = s < 8 ? b.scales[s] & 15 : b.scales[s - 8] >> 4;
      int high2 = (b.scales[8 + s % 4] >> (2 * (s / 4))) & 3;
      dl[s] = d * static_cast<float>((low4 | high2 << 4) - 32);
    }
    for (int o = 0; o < 256; ++o) {
      int h = o / 128, p = (o / 32) % 4, j = o % 32;
      int low = (b.qs[32 * h + j] >> (2 * p)) & 3;
      int high = (b.hmask[j] >> (4 * h + p)) & 1;
      y[o] = dl[o / 16] * static_cast<float>(low - (high ? 0 : 4));
    }
  }
}

// The eight 6-bit (scale, min) pairs of Q4_K / Q5_K, pre-multiplied by d and dmin.
void KScaleMins(const uint8_t* s, float d, float dmin, float* dl, float* ml) {
  for (int k = 0; k < 8; ++k) {
    int sc = k < 4 ? s[k] & 63 : (s[k + 4] & 15) | ((s[k - 4] >> 6) << 4);
    int m = k < 4 ? s[k + 4] & 63 : (s[k + 4] >> 4) | ((s[k] >> 6) << 4);
    dl[k] = d * static_cast<float>(sc);
    ml[k] = dmin * static_cast<float>(m);
  }
}

// Q4_K: output o = 64c + 32t + l is nibble t of qs[32c + l], sub-block 2c + t (= o / 32).
void DequantQ4_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ4_K>(src, i);
    float dl[8], ml[8];
    KScaleMins(b.scales, F16ToFloat(b.d), F16ToFloat(b.dmin), dl, ml);
    for (int o = 0; o < 256; ++o) {
      int c = o / 64, t = (o / 32) % 2, l = o % 32;
      y[o] = AffineSub(dl[o / 32], static_cast<float>(Nibble(b.qs[32 * c + l], t)), ml[o / 32]);
    }
  }
}

// Q5_K: Q4_K plus a fifth bit, bit o / 32 of qh[o % 32].
void DequantQ5_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ5_K>(src, i);
    float dl[8], ml[8];
    KScaleMins(b.scales, F16ToFloat(b.d), F16ToFloat(b.dmin), dl, ml);
    for (int o = 0; o < 256; ++o) {
      int c = o / 64, t = (o / 32) % 2, l = o % 32;
      int q = Nibble(b.qs[32 * c + l], t) | ((b.qh[l] >> (o / 32)) & 1) << 4;
      y[o] = AffineSub(dl[o / 32], static_cast<float>(q), ml[o / 32]);
    }
  }
}

// Q6_K: output o = 128h + r: low 4 bits are nibble r / 64 of ql[64h + r % 64], high 2 bits are
// bits 2(r / 32).. of qh[32h + r % 32]; scale o / 16.
void DequantQ6_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ6_K>(src, i);
    float d = F16ToFloat(b.d);
    float dl[16];
    for (int s = 0; s < 16; ++s) dl[s] = d * static_cast<float>(b.scales[s]);
    for (int o = 0; o < 256; ++o) {
      int h = o / 128, r = o % 128;
      int low = Nibble(b.ql[64 * h + r % 64], r / 64);
      int high = (b.qh[32 * h + r % 32] >> (2 * (r / 32))) & 3;
      y[o] = dl[o / 16] * static_cast<float>((low | high << 4) - 32);
    }
  }
}

void DequantQ8_K(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockQ8_K>(src, i);
    for (int j = 0; j < 256; ++j) y[j] = b.d * static_cast<float>(b.qs[j]);
  }
}

void DequantIQ4_NL(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockIQ4_NL>(src, i);
    float d = F16ToFloat(b.d);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(kIq4Values[Nibble(b.qs[j % 16], j / 16)]);
  }
}

// IQ4_XS: sub-block s (32 outputs) has scale ls - 32; its output j is nibble j / 16 of
// qs[16s + j % 16].
void DequantIQ4_XS(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK_K) {
    auto b = LoadBlock<BlockIQ4_XS>(src, i);
    float d = F16ToFloat(b.d);
    for (int s = 0; s < 8; ++s) {
      int ls = Nibble(b.scales_l[s / 2], s % 2) | ((b.scales_h >> (2 * s)) & 3) << 4;
      float dl = d * static_cast<float>(ls - 32);
      for (int j = 0; j < 32; ++j) {
        y[32 * s + j] = dl * static_cast<float>(kIq4Values[Nibble(b.qs[16 * s + j % 16], j / 16)]);
      }
    }
  }
}

// E8M0 exponent to half its power of two (ggml_e8m0_to_fp32_half): 2^(e - 128).
float E8m0ToFloatHalf(uint8_t e) {
  uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void DequantMXFP4(const uint8_t* src, int64_t nb, float* y) {
  for (int64_t i = 0; i < nb; ++i, y += kGgmlQK) {
    auto b = LoadBlock<BlockMXFP4>(src, i);
    float d = E8m0ToFloatHalf(b.e);
    for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(kMxfp4Values[Nibble(b.qs[j % 16], j / 16)]);
  }
}

// Each function takes the number of blocks (elements for the plain types, whose blocks are 1).
using DequantFn = void (*)(const uint8_t* src, int64_t blocks, float* dst);

struct Dequantizer {
  uint32_t type;
  DequantFn fn;
};

constexpr Dequantizer kDequantizers[] = {
    {kGgmlF32, DequantF32},       {kGgmlF16, DequantF16},       {kGgmlBF16, DequantBf16},
    {kGgmlQ4_0, DequantQ4_0},     {kGgmlQ4_1, DequantQ4_1},     {kGgmlQ5_0, DequantQ5_0},
    {kGgmlQ5_1, DequantQ5_1},     {kGgmlQ8_0, DequantQ8_0},     {kGgmlQ2_K, DequantQ2_K},
    {kGgmlQ3_K, DequantQ3_K},     {kGgmlQ4_K, DequantQ4_K},     {kGgmlQ5_K, DequantQ5_K},
    {kGgmlQ6_K, DequantQ6_K},     {kGgmlQ8_K, DequantQ8_K},     {kGgmlIQ4_NL, DequantIQ4_NL},
    {kGgmlIQ4_XS, DequantIQ4_XS}, {kGgmlMXFP4, DequantMXFP4},
};

DequantFn FindDequantizer(uint32_t type) {
  for (const Dequantizer& d : kDequantizers) {
    if (d.type == type) return d.fn;
  }
  return nullptr;
}

}  // namespace

bool CanDequantizeGgml(uint32_t type) { return FindDequantizer(type) != nullptr; }

Status DequantizeGgmlRow(uint32_t type, const uint8_t* src, int64_t n, float* dst) {
  const GgmlTypeInfo* info = FindGgmlType(type);
  if (info == nullptr) return InvalidArgumentError("unknown ggml type id " + std::to_string(type));
  DequantFn fn = FindDequantizer(type);
  if (fn == nullptr) {
    return UnimplementedError("ggml type " + std::string(info->name) + " (" + std::to_string(type) +
                              ") cannot be dequantized");
  }
  if (n < 0 || n % info->block_size != 0) {
    return InvalidArgumentError("cannot dequantize " + std::to_string(n) + " elements of " + std::string(info->name) +
                                ": not a whole number of " + std::to_string(info->block_size) + "-element blocks");
  }
  fn(src, n / info->block_size, dst);
  return OkStatus();
}

}  // namespace gemmad::tensor
