// bf16 and IEEE fp16 <-> fp32 conversions (scalar, round-to-nearest-even, NaN preserved).
// These are the reference conversions every SIMD kernel is tested against.
#pragma once

#include <cstdint>
#include <cstring>

namespace gemmad::tensor {

inline float Bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

// Rounds a float to the nearest bf16 value and back (what a bf16 store+load does).
inline float RoundToBf16(float f) { return Bf16ToFloat(FloatToBf16(f)); }

float F16ToFloat(uint16_t h);
uint16_t FloatToF16(float f);

}  // namespace gemmad::tensor
