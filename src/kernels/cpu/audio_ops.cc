// The audio tower's element-wise, normalisation and convolution ops (ops.h §audio tower) on the
// CPU: SiLU / GLU through the table's vector exp, ReLU, LayerNorm, im2col, causal depthwise conv.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/audio_op_contracts.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kMinChunk = 4096;
constexpr int64_t kBlock = 256;  // elements per pass through the vector exp

// out[i] = x[i] · sigmoid(g[i]) for i < n (n <= kBlock); sigmoid from e = exp(−|g|) so the vector
// exp only sees arguments <= 0: g >= 0 -> 1 / (1 + e), else e / (1 + e).
void GatedBlock(const float* x, const float* g, float* out, int64_t n, ExpShiftedFn exp_fn) {
  float e[kBlock] = {};
  for (int64_t i = 0; i < n; ++i) e[i] = -std::fabs(g[i]);
  exp_fn(e, n, 0.0f, 1.0f, e);
  for (int64_t i = 0; i < n; ++i) {
    const float s = (g[i] >= 0.0f ? 1.0f : e[i]) / (1.0f + e[i]);
    out[i] = x[i] * s;
  }
}

}  // namespace

void Silu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  internal::CheckUnaryF32(x, out, "Silu");
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  const ExpShiftedFn exp_fn = CpuKernels().exp_shifted;
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i += kBlock) GatedBlock(p + i, p + i, o + i, std::min(kBlock, e - i), exp_fn);
  });
}

void Relu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  internal::CheckUnaryF32(x, out, "Relu");
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  ParallelFor(ctx, x.NumElements(), kMinChunk, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = std::max(p[i], 0.0f);
  });
}

void Glu(const ExecContext& ctx, const TensorView& x, const TensorView& out) {
  const internal::GluShape shape = internal::CheckGlu(x, out);  // no structured binding: lambdas capture it
  const int64_t rows = shape.rows, w = shape.w;
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  const ExpShiftedFn exp_fn = CpuKernels().exp_shifted;
  ParallelFor(ctx, rows, std::max<int64_t>(1, kMinChunk / std::max<int64_t>(w, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float* a = p + r * 2 * w;
      for (int64_t i = 0; i < w; i += kBlock) GatedBlock(a + i, a + w + i, o + r * w + i, std::min(kBlock, w - i), exp_fn);
    }
  });
}

void LayerNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight, const TensorView& out,
               float eps) {
  const internal::RowsShape shape = internal::CheckLayerNorm(x, weight, out, eps);
  const int64_t rows = shape.rows, n = shape.n;
  const float* p = x.As<const float>();
  const float* w = weight.As<const float>();
  float* o = out.As<float>();
  ParallelFor(ctx, rows, std::max<int64_t>(1, kMinChunk / std::max<int64_t>(n, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const float* v = p + r * n;
      float sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += v[i];
      const float mean = sum / static_cast<float>(n);
      float var = 0;
      for (int64_t i = 0; i < n; ++i) var += (v[i] - mean) * (v[i] - mean);
      const float inv = 1.0f / std::sqrt(var / static_cast<float>(n) + eps);
      for (int64_t i = 0; i < n; ++i) o[r * n + i] = (v[i] - mean) * inv * w[i];
    }
  });
}

void Im2Col(const ExecContext& ctx, const TensorView& x, int64_t kernel, int64_t stride, int64_t pad,
            const TensorView& out) {
  const internal::Im2ColShape s = internal::CheckIm2Col(x, kernel, stride, pad, out);
  const float* p = x.As<const float>();
  float* o = out.As<float>();
  const int64_t row = s.k * s.k * s.c;
  const auto bytes = static_cast<size_t>(s.c) * sizeof(float);
  ParallelFor(ctx, s.ho * s.wo, std::max<int64_t>(1, kMinChunk / std::max<int64_t>(row, 1)), [&](int64_t b, int64_t e) {
    for (int64_t ij = b; ij < e; ++ij) {
      const int64_t i = ij / s.wo, j = ij % s.wo;
      float* dst = o + ij * row;
      for (int64_t a = 0; a < s.k; ++a) {
        const int64_t y = i * s.s - s.p + a;
        for (int64_t c = 0; c < s.k; ++c) {
          const int64_t xx = j * s.s - s.p + c;
          float* cell = dst + (a * s.k + c) * s.c;
          if (y < 0 || y >= s.h || xx < 0 || xx >= s.w) {
            std::memset(cell, 0, bytes);
          } else {
            std::memcpy(cell, p + (y * s.w + xx) * s.c, bytes);
          }
        }
      }
    }
  });
}

void CausalDepthwiseConv1d(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& out) {
  const internal::DepthwiseShape shape = internal::CheckCausalDepthwiseConv1d(x, w, out);
  const int64_t t_len = shape.t, d = shape.d, k = shape.k;
  const float* p = x.As<const float>();
  const float* wp = w.As<const float>();
  float* o = out.As<float>();
  // Taps transposed to [K, D] so the inner loop runs over contiguous channels.
  std::vector<float> taps(static_cast<size_t>(k * d));
  for (int64_t c = 0; c < d; ++c) {
    for (int64_t m = 0; m < k; ++m) taps[static_cast<size_t>(m * d + c)] = wp[c * k + m];
  }
  ParallelFor(ctx, t_len, std::max<int64_t>(1, kMinChunk / std::max<int64_t>(d, 1)), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      float* dst = o + t * d;
      std::fill(dst, dst + d, 0.0f);
      for (int64_t m = 0; m < k; ++m) {
        const int64_t src = t - k + 1 + m;
        if (src < 0) continue;
        const float* xs = p + src * d;
        const float* tw = taps.data() + m * d;
        for (int64_t c = 0; c < d; ++c) dst[c] += tw[c] * xs[c];
      }
    }
  });
}

}  // namespace gemmad::kernels::cpu
