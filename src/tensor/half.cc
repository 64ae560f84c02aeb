// IEEE binary16 conversions in portable C++.
#include "tensor/half.h"

#include <cmath>

namespace gemmad::tensor {

float F16ToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mant & 0x3FFu) << 13;
    }
  } else if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | (exp + 127 - 15) << 23 | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return sign | 0x7E00u;       // NaN
  if (abs >= 0x477FF000u) return sign | 0x7C00u;      // overflow (rounds to inf)
  if (abs < 0x38800000u) {                            // subnormal or zero in f16
    if (abs < 0x33000000u) return sign;               // rounds to zero
    // f16 subnormals are multiples of 2^-24: scale and round (ties-to-even) exactly in double.
    double scaled = std::ldexp(static_cast<double>(std::fabs(f)), 24);
    double r = std::nearbyint(scaled);  // ties-to-even under the default rounding mode
    return sign | static_cast<uint16_t>(r);
  }
  uint32_t exp = ((abs >> 23) - 127 + 15);
  uint32_t mant = abs & 0x7FFFFFu;
  uint32_t half = (exp << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return sign | static_cast<uint16_t>(half);
}

}  // namespace gemmad::tensor
