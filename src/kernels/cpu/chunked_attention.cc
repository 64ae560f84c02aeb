// ChunkedAttention on the CPU (ops.h §audio tower): one task per (query block, head). A slot whose
// key is masked gets the invalid logit without computing its dot products (the reference replaces
// them anyway), so only the allowed keys (12 of 24 slots with the released config) cost work; the
// softmax still spans all W slots, as HF's does.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/audio_op_contracts.h"
#include "kernels/cpu/cpu_ops.h"

namespace gemmad::kernels::cpu {
namespace {

// Σ a[e]·b[e] in 8 independent lanes (vectorisable without reassociation flags).
float Dot(const float* a, const float* b, int64_t d) {
  float acc[8] = {};
  int64_t e = 0;
  for (; e + 8 <= d; e += 8) {
    for (int l = 0; l < 8; ++l) acc[l] += a[e + l] * b[e + l];
  }
  float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; e < d; ++e) sum += a[e] * b[e];
  return sum;
}

}  // namespace

void ChunkedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& q_scale, const TensorView& k,
                      const TensorView& v, const TensorView& rel_k, const ChunkedAttentionParams& p,
                      const TensorView& out) {
  const internal::ChunkedAttentionShape s = internal::CheckChunkedAttention(q, q_scale, k, v, rel_k, p, out);
  const int64_t C = p.chunk, W = s.w, L = s.l, H = s.heads, d = s.d, T = s.t;
  const int64_t blocks = (T + C - 1) / C;
  const float* qp = q.As<const float>();
  const float* qsc = q_scale.As<const float>();
  const float* kp = k.As<const float>();
  const float* vp = v.As<const float>();
  const float* rp = rel_k.As<const float>();
  float* op = out.As<float>();
  ParallelFor(ctx, blocks * H, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> qs(static_cast<size_t>(d)), ks(static_cast<size_t>(W * d)), logits(static_cast<size_t>(W));
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / H, h = task % H;
      // The window's keys, scaled (zero outside [0, T)).
      for (int64_t j = 0; j < W; ++j) {
        const int64_t sk = b * C - p.past + j;
        float* dst = ks.data() + j * d;
        if (sk < 0 || sk >= T) {
          std::fill(dst, dst + d, 0.0f);
          continue;
        }
        const float* src = kp + (sk * H + h) * d;
        for (int64_t e = 0; e < d; ++e) dst[e] = src[e] * p.k_scale;
      }
      for (int64_t i = 0; i < C && b * C + i < T; ++i) {
        const int64_t t = b * C + i;
        const float* qrow = qp + (t * H + h) * d;
        for (int64_t e = 0; e < d; ++e) qs[e] = qrow[e] * qsc[e];
        bool any = false;
        for (int64_t j = 0; j < W; ++j) {
          const int64_t sk = b * C - p.past + j, dist = t - sk;
          const bool ok = sk >= 0 && sk < T && ((dist >= 0 && dist < p.past) || (dist < 0 && -dist < p.future));
          any |= ok;
          if (!ok) {
            logits[j] = p.invalid;
            continue;
          }
          // Allowed slots have j > i, where _rel_shift reads relative row j − i of this query.
          float x = Dot(qs.data(), ks.data() + j * d, d);
          if (j - i < L) x += Dot(qs.data(), rp + ((j - i) * H + h) * d, d);
          logits[j] = p.cap * std::tanh(x / p.cap);
        }
        if (!any) std::fill(logits.begin(), logits.end(), p.invalid);  // uniform, as HF
        const float m = *std::max_element(logits.begin(), logits.end());
        float sum = 0;
        for (float& l : logits) sum += l = std::exp(l - m);
        const float inv = 1.0f / sum;
        float* o = op + (t * H + h) * d;
        std::fill(o, o + d, 0.0f);
        for (int64_t j = 0; j < W; ++j) {
          const int64_t sk = b * C - p.past + j;
          const float pj = logits[j] * inv;
          if (sk < 0 || sk >= T || pj == 0.0f) continue;
          const float* vrow = vp + (sk * H + h) * d;
          for (int64_t e = 0; e < d; ++e) o[e] += pj * vrow[e];
        }
      }
    }
  });
}

}  // namespace gemmad::kernels::cpu
