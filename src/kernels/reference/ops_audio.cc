// Reference backend: the audio tower's ops (ops.h §audio tower), one element at a time with double
// accumulation. ChunkedAttention follows HF Gemma4AudioAttention literally: blocked queries, the
// context windows, the relative logits through _rel_shift's pad-and-reshape, softcap, mask, softmax.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/audio_op_contracts.h"
#include "kernels/reference/backend_ops.h"

namespace gemmad::kernels::reference::op {

void Silu(const ExecContext&, const TensorView& x, const TensorView& out) {
  internal::CheckUnaryF32(x, out, "Silu");
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double v = x.As<const float>()[i];
    out.As<float>()[i] = static_cast<float>(v / (1.0 + std::exp(-v)));
  }
}

void Relu(const ExecContext&, const TensorView& x, const TensorView& out) {
  internal::CheckUnaryF32(x, out, "Relu");
  for (int64_t i = 0; i < x.NumElements(); ++i) out.As<float>()[i] = std::max(x.As<const float>()[i], 0.0f);
}

void Glu(const ExecContext&, const TensorView& x, const TensorView& out) {
  const auto [rows, w] = internal::CheckGlu(x, out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < w; ++i) {
      const double a = x.As<const float>()[r * 2 * w + i], b = x.As<const float>()[r * 2 * w + w + i];
      out.As<float>()[r * w + i] = static_cast<float>(a / (1.0 + std::exp(-b)));
    }
  }
}

void LayerNorm(const ExecContext&, const TensorView& x, const TensorView& weight, const TensorView& out, float eps) {
  const auto [rows, n] = internal::CheckLayerNorm(x, weight, out, eps);
  for (int64_t r = 0; r < rows; ++r) {
    const float* p = x.As<const float>() + r * n;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += p[i];
    mean /= static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) var += (p[i] - mean) * (p[i] - mean);
    const double inv = 1.0 / std::sqrt(var / static_cast<double>(n) + eps);
    for (int64_t i = 0; i < n; ++i) {
      out.As<float>()[r * n + i] = static_cast<float>((p[i] - mean) * inv * weight.As<const float>()[i]);
    }
  }
}

void Im2Col(const ExecContext&, const TensorView& x, int64_t kernel, int64_t stride, int64_t pad,
            const TensorView& out) {
  const internal::Im2ColShape s = internal::CheckIm2Col(x, kernel, stride, pad, out);
  const int64_t row = s.k * s.k * s.c;
  for (int64_t i = 0; i < s.ho; ++i) {
    for (int64_t j = 0; j < s.wo; ++j) {
      for (int64_t a = 0; a < s.k; ++a) {
        for (int64_t b = 0; b < s.k; ++b) {
          const int64_t y = i * s.s - s.p + a, xx = j * s.s - s.p + b;
          for (int64_t c = 0; c < s.c; ++c) {
            const bool in = y >= 0 && y < s.h && xx >= 0 && xx < s.w;
            out.As<float>()[(i * s.wo + j) * row + (a * s.k + b) * s.c + c] =
                in ? x.As<const float>()[(y * s.w + xx) * s.c + c] : 0.0f;
          }
        }
      }
    }
  }
}

void CausalDepthwiseConv1d(const ExecContext&, const TensorView& x, const TensorView& w, const TensorView& out) {
  const auto [t_len, d, k] = internal::CheckCausalDepthwiseConv1d(x, w, out);
  for (int64_t t = 0; t < t_len; ++t) {
    for (int64_t c = 0; c < d; ++c) {
      double acc = 0;
      for (int64_t m = 0; m < k; ++m) {
        const int64_t src = t - k + 1 + m;
        if (src >= 0) acc += static_cast<double>(w.As<const float>()[c * k + m]) * x.As<const float>()[src * d + c];
      }
      out.As<float>()[t * d + c] = static_cast<float>(acc);
    }
  }
}

void ChunkedAttention(const ExecContext&, const TensorView& q, const TensorView& q_scale, const TensorView& k,
                      const TensorView& v, const TensorView& rel_k, const ChunkedAttentionParams& p,
                      const TensorView& out) {
  const internal::ChunkedAttentionShape s = internal::CheckChunkedAttention(q, q_scale, k, v, rel_k, p, out);
  const int64_t C = p.chunk, W = s.w, L = s.l, H = s.heads, d = s.d, T = s.t;
  const int64_t blocks = (T + C - 1) / C;
  // Scaled q and k as HF holds them (fp32 products); padded queries and keys are zero.
  auto qs = [&](int64_t t, int64_t h, int64_t e) -> double {
    if (t >= T) return 0.0;
    return q.As<const float>()[(t * H + h) * d + e] * q_scale.As<const float>()[e];
  };
  auto ks = [&](int64_t t, int64_t h, int64_t e) -> double {
    if (t < 0 || t >= T) return 0.0;
    return k.As<const float>()[(t * H + h) * d + e] * p.k_scale;
  };
  std::vector<double> bd(static_cast<size_t>(C * L)), logits(static_cast<size_t>(W));
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < C; ++i) {
        for (int64_t r = 0; r < L; ++r) {
          double acc = 0;
          for (int64_t e = 0; e < d; ++e) acc += qs(b * C + i, h, e) * rel_k.As<const float>()[(r * H + h) * d + e];
          bd[static_cast<size_t>(i * L + r)] = acc;
        }
      }
      for (int64_t i = 0; i < C; ++i) {
        const int64_t t = b * C + i;
        if (t >= T) continue;  // padded query rows are dropped
        for (int64_t j = 0; j < W; ++j) {
          const int64_t s_key = b * C - p.past + j;
          double ac = 0;
          for (int64_t e = 0; e < d; ++e) ac += qs(t, h, e) * ks(s_key, h, e);
          // _rel_shift: [C, L] padded to [C, W + 1], flattened, cut to C·W, viewed as [C, W].
          const int64_t flat = i * W + j, row = flat / (W + 1), col = flat % (W + 1);
          const double pos = col < L ? bd[static_cast<size_t>(row * L + col)] : 0.0;
          double logit = p.cap * std::tanh((ac + pos) / p.cap);
          const int64_t dist = t - s_key;
          const bool allowed = s_key >= 0 && s_key < T && ((dist >= 0 && dist < p.past) || (dist < 0 && -dist < p.future));
          logits[static_cast<size_t>(j)] = allowed ? logit : p.invalid;
        }
        double m = logits[0], sum = 0;
        for (double l : logits) m = std::max(m, l);
        for (double& l : logits) sum += l = std::exp(l - m);
        for (int64_t e = 0; e < d; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < W; ++j) {
            const int64_t s_key = b * C - p.past + j;
            if (s_key >= 0 && s_key < T) acc += logits[static_cast<size_t>(j)] / sum * v.As<const float>()[(s_key * H + h) * d + e];
          }
          out.As<float>()[(t * H + h) * d + e] = static_cast<float>(acc);
        }
      }
    }
  }
}

}  // namespace gemmad::kernels::reference::op
