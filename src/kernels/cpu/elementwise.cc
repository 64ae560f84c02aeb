// Element-wise ops: GeGLU, soft-cap, softmax, add, scale, int8 fake quantization, mul, clamp, shifted exp.
#include <algorithm>
#include <cmath>

#include "kernels/op_contracts.h"
#include "kernels/view_checks.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kMinChunk = 4096;

void CheckSameCount(const TensorView& a, const TensorView& b, const char* what) {
  GEMMAD_CHECK(a.NumElements() == b.NumElements(), "{}: {} vs {}", what, a.shape.ToString(), b.shape.ToString());
}

// out[i] = ClampOne(x[i]) with the pointers declared unaliased and the body in fixed blocks of 16,
// so the compiler packs it into vector min/max instructions (which keep a NaN input, as ClampOne
// does); the in-place case has its own instance.
constexpr int64_t kBlock = 16;
void ClampDisjoint(const float* __restrict x, float* __restrict out, int64_t n, float lo, float hi) {
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t k = 0; k < kBlock; ++k) {
      const float v = x[i + k] < lo ? lo : x[i + k];
      out[i + k] = v > hi ? hi : v;
    }
  }
  for (; i < n; ++i) out[i] = internal::ClampOne(x[i], lo, hi);
}
void ClampInPlace(float* __restrict x, int64_t n, float lo, float hi) {
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (int64_t k = 0; k < kBlock; ++k) {
      const float v = x[i + k] < lo ? lo : x[i + k];
      x[i + k] = v > hi ? hi : v;
    }
  }
  for (; i < n; ++i) x[i] = internal::ClampOne(x[i], lo, hi);
}
void ClampRange(const float* x, float* out, int64_t n, float lo, float hi) {
  if (x == out) {
    ClampInPlace(out, n, lo, hi);
  } else {
    ClampDisjoint(x, out, n, lo, hi);
  }
}

}  // namespace

void GeluTanhMul(const ExecContext& ctx, const TensorView& gate, const TensorView& up, const TensorView& out) {
  internal::CheckDType(gate, tensor::DType::kF32, "GeluTanhMul gate");
  internal::CheckDType(up, tensor::DType::kF32, "GeluTanhMul up");
  internal::CheckDType(out, tensor::DType::kF32, "GeluTanhMul out");
  CheckSameCount(gate, up, "GeluTanhMul");
  CheckSameCount(gate, out, "GeluTanhMul");
  const float* g = gate.As<const float>();
  const float* u = up.As<const float>();
  float* o = out.As<float>();
  const GeluTanhMulFn fn = CpuKernels().gelu_tanh_mul;
  ParallelFor(ctx, gate.NumElements(), kMinChunk, [&](int64_t b, int64_t e) { fn(g + b, u + b, o + b, e - b); });
}

void SoftCap(const ExecContext& ctx, const TensorView& x, float cap) {
  internal::CheckDType(x, tensor::DType::kF32, "SoftCap x");
  GEMMAD_CHECK(cap > 0.0f, "SoftCap: cap {}", cap);
  float* p = x.As<float>();
  const SoftCapFn fn = CpuKernels().softcap;
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) { fn(p + b, e - b, cap); });
}

void Softmax(const ExecContext& ctx, const TensorView& x) {
  internal::CheckDType(x, tensor::DType::kF32, "Softmax x");
  internal::CheckRank(x, 2, "Softmax x");
  const int64_t n = x.shape[1];
  float* p = x.As<float>();
  ParallelFor(ctx, x.shape[0], 1, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      float* v = p + r * n;
      const float m = *std::max_element(v, v + n);
      double sum = 0.0;
      for (int64_t i = 0; i < n; ++i) sum += v[i] = std::exp(v[i] - m);
      const float inv = static_cast<float>(1.0 / sum);
      for (int64_t i = 0; i < n; ++i) v[i] *= inv;
    }
  });
}

void Add(const ExecContext& ctx, const TensorView& a, const TensorView& b, const TensorView& out) {
  internal::CheckDType(a, tensor::DType::kF32, "Add a");
  internal::CheckDType(b, tensor::DType::kF32, "Add b");
  internal::CheckDType(out, tensor::DType::kF32, "Add out");
  CheckSameCount(a, b, "Add");
  CheckSameCount(a, out, "Add");
  const float* ap = a.As<const float>();
  const float* bp = b.As<const float>();
  float* o = out.As<float>();
  ParallelFor(ctx, a.NumElements(), kMinChunk, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) o[i] = ap[i] + bp[i];
  });
}

void Scale(const ExecContext& ctx, const TensorView& x, float s) {
  internal::CheckDType(x, tensor::DType::kF32, "Scale x");
  float* p = x.As<float>();
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] *= s;
  });
}

void FakeQuantInt8(const ExecContext& ctx, const TensorView& x, float s) {
  internal::CheckDType(x, tensor::DType::kF32, "FakeQuantInt8 x");
  GEMMAD_CHECK(s > 0.0f && std::isfinite(s), "FakeQuantInt8: scale {}", s);
  float* p = x.As<float>();
  const FakeQuantInt8Fn fn = CpuKernels().fake_quant_int8;
  // A decode step's outputs (a few thousand) take about a microsecond: one thread below 64K.
  ParallelFor(ctx, x.NumElements(), 65536, [&](int64_t b, int64_t e) { fn(p + b, e - b, s, p + b); });
}

void Mul(const ExecContext& ctx, const TensorView& a, const TensorView& b, const TensorView& out) {
  internal::CheckDType(a, tensor::DType::kF32, "Mul a");
  internal::CheckDType(b, tensor::DType::kF32, "Mul b");
  internal::CheckDType(out, tensor::DType::kF32, "Mul out");
  CheckSameCount(a, b, "Mul");
  CheckSameCount(a, out, "Mul");
  const float* ap = a.As<const float>();
  const float* bp = b.As<const float>();
  float* o = out.As<float>();
  ParallelFor(ctx, a.NumElements(), kMinChunk, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) o[i] = ap[i] * bp[i];
  });
}

void Clamp(const ExecContext& ctx, const TensorView& x, float lo, float hi, const TensorView& out) {
  internal::CheckClamp(x, lo, hi, out);
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) {
    ClampRange(p + b, o + b, e - b, lo, hi);
  });
}

void ExpShifted(const ExecContext& ctx, const TensorView& x, float shift, float scale, const TensorView& out) {
  internal::CheckDType(x, tensor::DType::kF32, "ExpShifted x");
  internal::CheckDType(out, tensor::DType::kF32, "ExpShifted out");
  CheckSameCount(x, out, "ExpShifted");
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  const ExpShiftedFn fn = CpuKernels().exp_shifted;
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) { fn(p + b, e - b, shift, scale, o + b); });
}

}  // namespace gemmad::kernels::cpu
