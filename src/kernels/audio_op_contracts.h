// The audio tower ops' contract checks (kernels/ops.h §audio tower), run by both backends: each
// validates its op's views and returns the sizes an implementation needs. Internal to kernels/.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/ops.h"
#include "kernels/view_checks.h"

namespace gemmad::kernels::internal {

// Silu / Relu: f32 with equal element counts.
inline void CheckUnaryF32(const tensor::TensorView& x, const tensor::TensorView& out, const char* what) {
  CheckDType(x, tensor::DType::kF32, what);
  CheckDType(out, tensor::DType::kF32, what);
  GEMMAD_CHECK(x.NumElements() == out.NumElements(), "{}: {} vs {}", what, x.shape.ToString(), out.shape.ToString());
}

inline float SigmoidOne(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Glu: rows and the output width w.
struct GluShape {
  int64_t rows, w;
};
inline GluShape CheckGlu(const tensor::TensorView& x, const tensor::TensorView& out) {
  CheckDType(x, tensor::DType::kF32, "Glu x");
  CheckDType(out, tensor::DType::kF32, "Glu out");
  CheckRank(x, 2, "Glu x");
  CheckRank(out, 2, "Glu out");
  GEMMAD_CHECK(x.shape[0] == out.shape[0] && x.shape[1] == 2 * out.shape[1] && x.data != out.data,
               "Glu: x {} out {}", x.shape.ToString(), out.shape.ToString());
  return {out.shape[0], out.shape[1]};
}

// LayerNorm: rows and width.
struct RowsShape {
  int64_t rows, n;
};
inline RowsShape CheckLayerNorm(const tensor::TensorView& x, const tensor::TensorView& weight,
                                const tensor::TensorView& out, float eps) {
  CheckDType(x, tensor::DType::kF32, "LayerNorm x");
  CheckDType(out, tensor::DType::kF32, "LayerNorm out");
  CheckDType(weight, tensor::DType::kF32, "LayerNorm weight");
  CheckRank(x, 2, "LayerNorm x");
  GEMMAD_CHECK(out.shape == x.shape && weight.NumElements() == x.shape[1] && eps > 0.0f, "LayerNorm: x {} w {} out {}",
               x.shape.ToString(), weight.shape.ToString(), out.shape.ToString());
  return {x.shape[0], x.shape[1]};
}

// Im2Col: the input and output sizes.
struct Im2ColShape {
  int64_t h, w, c, ho, wo, k, s, p;
};
inline Im2ColShape CheckIm2Col(const tensor::TensorView& x, int64_t k, int64_t s, int64_t p,
                               const tensor::TensorView& out) {
  CheckDType(x, tensor::DType::kF32, "Im2Col x");
  CheckDType(out, tensor::DType::kF32, "Im2Col out");
  CheckRank(x, 3, "Im2Col x");
  CheckRank(out, 3, "Im2Col out");
  GEMMAD_CHECK(k >= 1 && s >= 1 && p >= 0 && p < k, "Im2Col: kernel {} stride {} pad {}", k, s, p);
  const Im2ColShape r{x.shape[0], x.shape[1], x.shape[2], out.shape[0], out.shape[1], k, s, p};
  GEMMAD_CHECK(r.h + 2 * p >= k && r.w + 2 * p >= k && r.ho == (r.h + 2 * p - k) / s + 1 &&
                   r.wo == (r.w + 2 * p - k) / s + 1 && out.shape[2] == k * k * r.c && x.data != out.data,
               "Im2Col: x {} out {} (kernel {} stride {} pad {})", x.shape.ToString(), out.shape.ToString(), k, s, p);
  return r;
}

// CausalDepthwiseConv1d: T, D, K.
struct DepthwiseShape {
  int64_t t, d, k;
};
inline DepthwiseShape CheckCausalDepthwiseConv1d(const tensor::TensorView& x, const tensor::TensorView& w,
                                                 const tensor::TensorView& out) {
  CheckDType(x, tensor::DType::kF32, "CausalDepthwiseConv1d x");
  CheckDType(w, tensor::DType::kF32, "CausalDepthwiseConv1d w");
  CheckDType(out, tensor::DType::kF32, "CausalDepthwiseConv1d out");
  CheckRank(x, 2, "CausalDepthwiseConv1d x");
  CheckRank(w, 2, "CausalDepthwiseConv1d w");
  GEMMAD_CHECK(out.shape == x.shape && w.shape[0] == x.shape[1] && w.shape[1] >= 1 && x.data != out.data,
               "CausalDepthwiseConv1d: x {} w {} out {}", x.shape.ToString(), w.shape.ToString(), out.shape.ToString());
  return {x.shape[0], x.shape[1], w.shape[1]};
}

// ChunkedAttention: sizes; W context slots, L relative rows.
struct ChunkedAttentionShape {
  int64_t t, heads, d, w, l;
};
inline ChunkedAttentionShape CheckChunkedAttention(const tensor::TensorView& q, const tensor::TensorView& q_scale,
                                                   const tensor::TensorView& k, const tensor::TensorView& v,
                                                   const tensor::TensorView& rel_k, const ChunkedAttentionParams& p,
                                                   const tensor::TensorView& out) {
  for (const auto* t : {&q, &k, &v, &rel_k, &out}) {
    CheckDType(*t, tensor::DType::kF32, "ChunkedAttention");
    CheckRank(*t, 3, "ChunkedAttention");
  }
  CheckDType(q_scale, tensor::DType::kF32, "ChunkedAttention q_scale");
  GEMMAD_CHECK(p.chunk >= 1 && p.past >= 0 && p.future >= 0 && p.cap > 0.0f && std::isfinite(p.k_scale),
               "ChunkedAttention: chunk {} past {} future {} cap {} k_scale {}", p.chunk, p.past, p.future, p.cap,
               p.k_scale);
  const ChunkedAttentionShape s{q.shape[0], q.shape[1], q.shape[2], p.chunk + p.past + p.future, 0};
  GEMMAD_CHECK(k.shape == q.shape && v.shape == q.shape && out.shape == q.shape && q_scale.NumElements() == s.d &&
                   rel_k.shape[0] == s.w / 2 + 1 && rel_k.shape[1] == s.heads && rel_k.shape[2] == s.d,
               "ChunkedAttention: q {} q_scale {} k {} v {} rel_k {} out {} (W {})", q.shape.ToString(),
               q_scale.shape.ToString(), k.shape.ToString(), v.shape.ToString(), rel_k.shape.ToString(),
               out.shape.ToString(), s.w);
  GEMMAD_CHECK(out.data != q.data && out.data != k.data && out.data != v.data, "ChunkedAttention: out aliases an input");
  return {s.t, s.heads, s.d, s.w, s.w / 2 + 1};
}

}  // namespace gemmad::kernels::internal
