// Scalar attention: scores, mask, softmax and weighted sum in double.
#include "kernels/reference/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/check.h"

namespace gemmad::kernels::reference {

void Attention(const float* q, int64_t num_q, int64_t num_heads, const float* k, const float* v,
               int64_t num_k, int64_t num_kv_heads, int64_t head_dim, const int64_t* q_index,
               const int64_t* key_end, int64_t window, float scale, float* out) {
  const int64_t group = num_heads / num_kv_heads;
  std::vector<double> scores(static_cast<size_t>(num_k));
  for (int64_t t = 0; t < num_q; ++t) {
    const int64_t qi = q_index[t];
    const int64_t lo = window > 0 ? std::max<int64_t>(0, qi - window + 1) : 0;
    GEMMAD_CHECK(key_end == nullptr || key_end[t] > qi, "reference Attention: key_end {} of query {} at key {}",
                 key_end == nullptr ? 0 : key_end[t], t, qi);
    const int64_t hi = std::min(key_end != nullptr ? key_end[t] - 1 : qi, num_k - 1);
    for (int64_t h = 0; h < num_heads; ++h) {
      const float* qv = q + (t * num_heads + h) * head_dim;
      const int64_t g = h / group;
      double m = -INFINITY;
      for (int64_t j = lo; j <= hi; ++j) {
        const float* kv = k + (j * num_kv_heads + g) * head_dim;
        double s = 0.0;
        for (int64_t i = 0; i < head_dim; ++i) s += static_cast<double>(qv[i]) * kv[i];
        scores[j] = s * scale;
        m = std::max(m, scores[j]);
      }
      double sum = 0.0;
      for (int64_t j = lo; j <= hi; ++j) sum += std::exp(scores[j] - m);
      float* o = out + (t * num_heads + h) * head_dim;
      for (int64_t i = 0; i < head_dim; ++i) {
        double acc = 0.0;
        for (int64_t j = lo; j <= hi; ++j) {
          acc += std::exp(scores[j] - m) / sum * v[(j * num_kv_heads + g) * head_dim + i];
        }
        o[i] = static_cast<float>(acc);
      }
    }
  }
}

}  // namespace gemmad::kernels::reference
