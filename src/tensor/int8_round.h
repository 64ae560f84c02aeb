// clamp(round-half-even(v), -128, 127) as a float: the static int8 activation quantization of
// compressed-tensors a8/o8 schemes (model/gemma4/act_quant_linear.cc, kernels::LinearStaticInt8).
// Clamped first (the bounds are integers, so the order does not matter; NaN stays NaN), then rounded
// by adding and removing 1.5 · 2^23, which rounds to nearest, ties to even, in the default mode, as
// std::nearbyint does. The scalar formula: loops over arrays use the kernel tables' QuantizeInt8 /
// FakeQuantInt8 (kernels/registry.h), which reproduce it bit for bit in vector registers (a plain
// loop of it stays scalar on the x86-64 baseline).
#pragma once

namespace gemmad::tensor {

inline float RoundClampInt8(float v) {
  constexpr float kMagic = 12582912.0f;  // 1.5 · 2^23
  v = v < -128.0f ? -128.0f : v;
  v = v > 127.0f ? 127.0f : v;
  return (v + kMagic) - kMagic;
}

}  // namespace gemmad::tensor
