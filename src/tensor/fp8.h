// FP8 E4M3 ("float8_e4m3fn": 1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no infinities,
// 0x7F/0xFF NaN, largest finite 448, subnormals m·2^-9) as compressed-tensors FP8 checkpoints store
// weights and vLLM quantizes activations (spec quantized-checkpoints.md §1.2, §2.2). Scalar
// references the FP8 kernels are tested against.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gemmad::tensor {

constexpr float kE4M3Max = 448.0f;

// The value of a code (NaN for 0x7F / 0xFF).
inline float E4M3ToFloat(uint8_t c) {
  const int e = (c >> 3) & 15, m = c & 7;
  if (e == 15 && m == 7) return std::nanf("");
  const float mag = e == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.0f + static_cast<float>(m) / 8.0f, e - 7);
  return (c & 0x80) ? -mag : mag;
}

// v rounded to the nearest E4M3 value (ties to even), saturating at ±448 (what a cast after a clamp
// to ±448 gives, as vLLM and compressed-tensors quantize). NaN stays NaN.
inline float RoundToE4M3(float v) {
  if (std::isnan(v)) return v;
  float a = std::fabs(v);
  if (a >= kE4M3Max) {
    a = kE4M3Max;
  } else if (a < 0x1p-6f) {  // subnormal range: steps of 2^-9
    a = std::nearbyint(a * 512.0f) * 0x1p-9f;
  } else {  // keep 3 mantissa bits, ties to even (a carry moves into the exponent)
    uint32_t b;
    std::memcpy(&b, &a, 4);
    b += 0x7FFFFu + ((b >> 20) & 1u);
    b &= 0xFFF00000u;
    std::memcpy(&a, &b, 4);
  }
  return std::copysign(a, v);
}

// The code of RoundToE4M3(v) (NaN -> 0x7F).
inline uint8_t FloatToE4M3(float v) {
  const float r = RoundToE4M3(v);
  if (std::isnan(r)) return 0x7F;
  const uint8_t sign = std::signbit(r) ? 0x80 : 0;
  const float a = std::fabs(r);
  if (a < 0x1p-6f) return static_cast<uint8_t>(sign | static_cast<uint8_t>(a * 512.0f));
  int e = 0;
  const float f = std::frexp(a, &e);  // a = f · 2^e, f in [0.5, 1)
  const int m = static_cast<int>((f * 2.0f - 1.0f) * 8.0f);
  return static_cast<uint8_t>(sign | ((e - 1 + 7) << 3) | m);
}

}  // namespace gemmad::tensor
